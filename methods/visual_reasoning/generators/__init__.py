"""One generator per task: `generate(rng, difficulty, id) -> Puzzle`, deterministic given the generator."""
