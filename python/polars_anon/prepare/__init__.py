"""Steps 1 and 2 of the data flow: each quasi-identifier encoded through its
hierarchy and F0 grouped in one scan where the table lives (`f0`), at floor
levels off Polars (`floors`), held as a `Prepared` table (`prepared`) with
the label mappings a release reuses (`labels`)."""
