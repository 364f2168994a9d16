"""A synthetic corpus with known word structure, for checking that embeddings recover it.

Nouns vary along two attributes, gender (male/female) and rank (royal/common/young)::

    king queen | man woman | boy girl

Each sentence uses one noun with a pronoun of its gender ("he his him" / "she her hers") and a
verb and object of its rank ("rules the kingdom", "works at the market", "plays at school"), joined
by filler words. Gender and rank are therefore each carried by their own context words, so a
good embedding makes ``king - man + woman`` point to ``queen`` and ``boy - man + woman`` to ``girl``.
"""

from __future__ import annotations

import numbers

from ..validation import check_random_state, check_scalar

__all__ = ["NOUNS", "make_analogy_corpus"]

NOUNS = {
    ("male", "royal"): "king",
    ("female", "royal"): "queen",
    ("male", "common"): "man",
    ("female", "common"): "woman",
    ("male", "young"): "boy",
    ("female", "young"): "girl",
}
_PRONOUNS = {"male": ["he", "his", "him"], "female": ["she", "her", "hers"]}
_RANK_WORDS = {
    "royal": (["rules", "reigns", "commands"], ["kingdom", "throne", "palace", "crown"]),
    "common": (["works", "trades", "labours"], ["market", "street", "shop", "farm"]),
    "young": (["plays", "learns", "runs"], ["school", "toy", "game", "garden"]),
}
_FILLER = ["the", "a", "and", "then", "today", "often"]


def make_analogy_corpus(n_sentences: int = 2000, random_state=None) -> list[list[str]]:
    """``n_sentences`` token lists generated from the templates above."""
    check_scalar(n_sentences, "n_sentences", numbers.Integral, low=1)
    rng = check_random_state(random_state)
    keys = list(NOUNS)
    sentences = []
    for _ in range(int(n_sentences)):
        gender, rank = keys[rng.integers(len(keys))]
        verbs, objects = _RANK_WORDS[rank]
        pron = _PRONOUNS[gender]
        s = [
            _FILLER[rng.integers(2)],
            NOUNS[(gender, rank)],
            verbs[rng.integers(3)],
            _FILLER[rng.integers(len(_FILLER))],
            objects[rng.integers(4)],
            _FILLER[2],
            pron[rng.integers(3)],
            verbs[rng.integers(3)],
            _FILLER[rng.integers(len(_FILLER))],
            objects[rng.integers(4)],
        ]
        sentences.append(s)
    return sentences
