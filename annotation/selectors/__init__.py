"""annotation's reads, by what they read: `studies` (which studies and rounds), `queue` (one's own queue and
labels), `labels` (everyone's labels, behind the blind rule), `votes` (current votes, ties, what the lead must
decide), `final_labels`, `history` (every stored version of a label), `statistics` (Table 1 and Figure 3) and
`comparison` (subsets compared). Writes are in annotation.services; file formats in annotation.exports."""
