"""(epsilon, delta)-differential privacy by SafePub: its parameters, keyed
randomness, exponential mechanism, score functions and search; the entry
point is `polars_anon.differential_privacy` (`api.dp`)."""
