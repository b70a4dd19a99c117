"""Machine raters: models that label reports, measured against the human panel like people."""
