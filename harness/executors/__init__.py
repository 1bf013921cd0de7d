"""Executors run planned runs in isolation and report each finished record."""
