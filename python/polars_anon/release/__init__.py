"""Step 7 of the data flow: the release, a generalized and suppressed table,
checked on F0 before it is handed back (`build`), labelled by the
expressions of `exprs`, and on Polars a LazyFrame that checks itself again
whenever it is collected (`guard`)."""
