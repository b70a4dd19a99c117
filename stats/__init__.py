"""The statistics, on the ground floor: pure functions of numbers and labels, no Django, no database and
nothing else of Concord's, so that every app may compute with them and each is written once."""
