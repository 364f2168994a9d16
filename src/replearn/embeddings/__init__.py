"""Word embeddings from co-occurrence (EPFL notes, text representations, seed 004 L1515-1561).

* :mod:`.cooccurrence`: tokenizer, :class:`Vocabulary`, windowed co-occurrence counts;
* :class:`GloVe`: weighted least squares on log counts; :class:`SkipGramNS`: skip-gram with
  negative sampling;
* :func:`most_similar`, :func:`analogy`: cosine neighbours and 3CosAdd analogies;
* :func:`make_analogy_corpus`: a synthetic corpus whose gender/rank structure embeddings should recover.
"""

from .cooccurrence import Vocabulary, cooccurrence_matrix, split_sentences, tokenize
from .corpus import make_analogy_corpus
from .glove import GloVe
from .similarity import analogy, most_similar, normalize_rows
from .skipgram import SkipGramNS, skipgram_pairs

__all__ = [
    "tokenize",
    "split_sentences",
    "Vocabulary",
    "cooccurrence_matrix",
    "GloVe",
    "SkipGramNS",
    "skipgram_pairs",
    "most_similar",
    "analogy",
    "normalize_rows",
    "make_analogy_corpus",
]
