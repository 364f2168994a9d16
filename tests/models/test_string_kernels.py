"""String kernels (CS229 notes §5.4): substring counts by DP vs explicit phi, subsequence kernel vs enumeration."""

import numpy as np
import pytest

from replearn.kernels import is_psd
from replearn.string_kernels import (
    string_kernel_matrix,
    subsequence_kernel,
    subsequence_kernel_bruteforce,
    substring_features,
    substring_kernel,
    substring_kernel_counts,
)

WORDS = ["monsters", "eat", "tasty", "bunnies", "tasty monsters", "bunnies eat monsters"]


def test_substring_kernel_by_hand_and_by_counts():
    # "abab": ab x2, ba x1; "bab": ba x1, ab x1 -> 2*1 + 1*1 = 3
    assert substring_features("abab", 2) == {"ab": 2, "ba": 1}
    assert substring_kernel("abab", "bab", 2) == 3.0
    for s in WORDS:
        for t in WORDS:
            for k in (1, 2, 3):
                assert substring_kernel(s, t, k) == substring_kernel_counts(s, t, k)
    assert substring_kernel("ab", "abc", 3) == 0.0


@pytest.mark.parametrize("s, t", [("cat", "cart"), ("science", "cience"), ("tasty", "bunnies"), ("aaa", "aa")])
def test_subsequence_kernel_dp_equals_enumeration(s, t):
    for k in (1, 2, 3):
        assert subsequence_kernel(s, t, k, lam=0.7) == pytest.approx(subsequence_kernel_bruteforce(s, t, k, lam=0.7))
    assert subsequence_kernel("cat", "car", 2, lam=0.5) == pytest.approx(0.5**4)  # "ca": lam^2 * lam^2


def test_gram_matrices_are_psd_and_a_nearest_neighbour_reads_the_language():
    for kernel in ("substring", "subsequence"):
        K = string_kernel_matrix(WORDS, kernel=kernel, k=2, normalize=True)
        assert is_psd(K)
        np.testing.assert_allclose(np.diag(K), 1.0)
    english = ["the cat sat on the mat", "where is the house", "this is the weather"]
    spanish = ["el gato come pescado", "donde esta la casa", "hace buen tiempo hoy"]
    queries = ["the dog is there", "la casa esta cerca"]
    K = string_kernel_matrix(queries, english + spanish, k=2, normalize=True)
    assert list(np.argmax(K, axis=1) < 3) == [True, False]
    with pytest.raises(TypeError, match="A\\[1\\] must be a str"):
        string_kernel_matrix(["a", 3])
