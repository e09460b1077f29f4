"""Step 6 of the data flow: what a search answers (`search`; mu-Argus's in
`mu_argus`), the choice of its preferred node (`best`), and a local
recoding's table (`local`)."""
