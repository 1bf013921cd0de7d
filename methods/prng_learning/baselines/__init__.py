"""The references the issue names: chance, an in-context n-gram lookup and the classical solver that knows m."""
