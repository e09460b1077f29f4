"""Job files: a release's recipe in TOML (`job`: `Job`, `JobRun` and
`MondrianRun`), with its tables, hierarchy sources, criteria, TOML writing
and Mondrian's runs (`mondrian`) in a module each."""
