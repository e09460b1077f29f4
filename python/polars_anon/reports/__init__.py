"""What a check and a risk assessment report (`check`, `risk`), read through
one rendering as text and HTML (`render`), which the search results use too."""
