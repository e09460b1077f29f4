"""Job files: a release's recipe in TOML (`job`: `Job` and `JobRun`), with
its tables, hierarchy sources, criteria and TOML writing in a module each."""
