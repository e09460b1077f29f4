"""Pictures of a search and a check, drawn with matplotlib (the ``plot``
extra). Each function returns a `matplotlib.figure.Figure` made without
pyplot, so nothing is drawn twice in a notebook and nothing global changes:
a notebook shows it as a cell's value (as a PNG), a script saves it with
``fig.savefig(path)``.

Each picture is one module, given the figures it draws (not the result
objects, which call it): `groups` (a check's group sizes), `lattice` (a
search's lattice), `tradeoff` (utility against risk) and `quality` (a
release's quality per attribute)."""
