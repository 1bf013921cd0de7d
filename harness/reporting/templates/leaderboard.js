// Sorts and filters the leaderboard (and the pages of `harness site`) in place. It reads names from data-*
// attributes only: no report string is ever written into this script, and the page's Content-Security-Policy
// allows no other script (by hash).
(function () {
  function value(row, col) {
    var cell = row.querySelector('td[data-col="' + col + '"]');
    var v = cell ? parseFloat(cell.getAttribute('data-value')) : NaN;
    return isNaN(v) ? null : v;
  }
  function sortBy(header) {
    var table = header.closest('table');
    var col = header.getAttribute('data-col');
    var state = header.getAttribute('aria-sort');
    var ascending = state === 'none' ? table.getAttribute('data-higher') !== '1' : state === 'descending';
    table.querySelectorAll('th.sortable').forEach(function (h) { h.setAttribute('aria-sort', 'none'); });
    header.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    var body = table.querySelector('tbody.measured-rows');
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a, col), y = value(b, col);
      if (x === null || y === null) { return (x === null) - (y === null); }
      return ascending ? x - y : y - x;
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  function control(id) {  // a page of the site may lack a filter: it then filters nothing
    var el = document.getElementById(id);
    return el ? el.value : '';
  }
  function applyFilters() {
    var dataset = control('filter-dataset');
    var metric = control('filter-metric');
    var query = control('filter-method').trim().toLowerCase();
    document.querySelectorAll('[data-method], [data-dataset]').forEach(function (el) {
      var okMethod = !el.hasAttribute('data-method') ||
        el.getAttribute('data-method').toLowerCase().indexOf(query) !== -1;
      var okDataset = !el.hasAttribute('data-dataset') || dataset === '' ||
        el.getAttribute('data-dataset') === dataset;
      el.hidden = !(okMethod && okDataset);
    });
    document.querySelectorAll('section.leaderboard').forEach(function (section) {
      section.hidden = metric !== '' && section.getAttribute('data-index') !== metric;
    });
  }
  document.querySelectorAll('th.sortable').forEach(function (header) {
    header.addEventListener('click', function () { sortBy(header); });
  });
  ['filter-dataset', 'filter-metric', 'filter-method'].forEach(function (id) {
    var el = document.getElementById(id);
    if (el) { el.addEventListener('input', applyFilters); }
  });
})();
