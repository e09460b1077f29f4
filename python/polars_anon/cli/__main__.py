from polars_anon.cli import main

raise SystemExit(main())
