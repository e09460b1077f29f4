"""Job files: a release's recipe in TOML (`job`: `Job`; `resolved`: `JobRun`;
`mondrian`: `MondrianRun`), with its tables, hierarchy sources, criteria, TOML writing
and Mondrian's runs (`mondrian`) in a module each."""
