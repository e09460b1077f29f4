"""What a release keeps of its table's utility (issue #29). ARX 3.9's
quality statistics (`StatisticsQuality`), figure for figure: `quality`
(in `quality`) over the release as ARX reads it (`release`: from the
frequency set, so on any engine), each quasi-identifier with its hierarchy
table and data type as ARX's models see them (`attribute`), one function
per ARX quality model (`measures`), and the `QualityReport` (`report`).

The package is not named ``quality``: ``polars_anon.quality`` is the
function (loaded lazily), which a subpackage of that name would shadow."""
