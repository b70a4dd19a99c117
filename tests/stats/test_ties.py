from stats.ties import is_controversial, modal_label


def test_majority_wins():
    assert modal_label(["bug", "bug", "question"]) == "bug"


def test_shared_largest_vote_is_a_tie():
    # The method's own example: 3 bug, 3 requirement, 1 question.
    votes = ["bug"] * 3 + ["requirement"] * 3 + ["question"]
    assert modal_label(votes) is None
    assert is_controversial(votes)


def test_unanimous_and_empty_are_not_controversial():
    assert not is_controversial(["bug"] * 7)
    assert not is_controversial([])
