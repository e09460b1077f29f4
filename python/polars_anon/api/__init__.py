"""The typed functional API, the entry points (the ``anon`` namespaces wrap
them): `check` and `generalize` (`check`), the searches (`search`),
`risk`, `frequency_set` (`counts`) and `local_recoding` (`local`). Each
prepares the table and hands it down the data flow."""
