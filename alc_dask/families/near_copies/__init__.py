"""Near copies: whether the release's rows sit nearer to its members than a release of other people's would."""
