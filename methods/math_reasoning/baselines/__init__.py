"""The baselines of both papers: training sets at STAT's budget, and teacher scores GRACE is compared with."""
