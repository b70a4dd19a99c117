"""annotation's file formats: `labels` (every label, one CSV row each) and `history` (every stored version of
every label). The whole corpus and the study backup are corpus.exports and corpus.backup."""
