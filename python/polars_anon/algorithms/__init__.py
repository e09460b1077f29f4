"""Searches written in Python (the core's are in ``src/search/``): mu-Argus
(`mu_argus`), which suppresses cells rather than tuples."""
