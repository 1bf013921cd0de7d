"""The baselines SpaceControl is compared with: the guidance family the paper beats (loss guidance at every
sampling step, `guidance`; D-Flow noise optimisation, `noise_optimisation`), the ends of its trade-off (the
control itself, unconditional sampling), retrieval (the nearest training shape), reference rows (a fresh draw of
real shapes: the Fréchet floor; the true shapes), and a user's recorded shapes."""
