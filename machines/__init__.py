"""Machine raters (issue 18): models that label reports, measured against the human panel like people."""
