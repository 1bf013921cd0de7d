"""Reports rendered from the store only: tables (Markdown, LaTeX, CSV), plots and an HTML leaderboard."""
