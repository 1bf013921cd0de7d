"""The baselines SpaceControl is placed between: the control itself, the nearest training shape, unconditional
sampling, and a user's recorded shapes."""
