"""Every column's role in a release: quasi-identifiers (generalized),
sensitive attributes (the criteria's), identifiers (dropped, pseudonymized
or masked), insensitive columns (passed through as declared), and the
undeclared rest, refused when it would identify records on its own."""
