"""Group fairness measures (CIML §8.4): disparate impact, the 80 % rule (eq. 8.16) and the rate differences."""

import numpy as np
import pytest

from replearn.evaluation.fairness import (
    disparate_impact,
    equal_opportunity_difference,
    equalized_odds_difference,
    fairness_report,
    passes_80_percent_rule,
    selection_rates,
    statistical_parity_difference,
)


def hiring():
    # 10 men hired at 50 %, 10 women hired at 30 % (or 40 %): 0.3 / 0.5 = 0.6 fails, 0.4 / 0.5 = 0.8 passes
    group = np.array(["m"] * 10 + ["f"] * 10)
    hired = np.array([1] * 5 + [0] * 5 + [1] * 3 + [0] * 7)
    return group, hired


def test_80_percent_rule_by_hand():
    group, hired = hiring()
    assert selection_rates(hired, group) == {"f": 0.3, "m": 0.5}
    assert disparate_impact(hired, group, privileged="m") == pytest.approx(0.6)
    assert not passes_80_percent_rule(hired, group, privileged="m")
    hired[13] = 1  # a fourth woman hired: exactly 80 %
    assert disparate_impact(hired, group, privileged="m") == pytest.approx(0.8)
    assert passes_80_percent_rule(hired, group, privileged="m")
    assert statistical_parity_difference(hired, group, "m") == pytest.approx(-0.1)


def test_other_groups_are_pooled_as_in_eq_8_16():
    group = np.array(["m", "m", "f", "x", "x", "f"])
    pred = np.array([1, 1, 1, 0, 1, 0])
    assert disparate_impact(pred, group, "m") == pytest.approx((2 / 4) / 1.0)


def test_label_based_measures():
    group = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    y_true = np.array([1, 1, 0, 0, 1, 1, 0, 0])
    y_pred = np.array([1, 1, 0, 0, 1, 0, 1, 0])
    # privileged 0: TPR 1, FPR 0; group 1: TPR 1/2, FPR 1/2
    assert equal_opportunity_difference(y_true, y_pred, group, 0) == pytest.approx(-0.5)
    assert equalized_odds_difference(y_true, y_pred, group, 0) == pytest.approx(0.5)
    report = fairness_report(y_pred, group, 0, y_true=y_true)
    assert report.accuracy_privileged == 1.0 and report.accuracy_unprivileged == 0.5
    assert report.disparate_impact == 1.0 and report.passes_80_percent_rule


def test_edge_cases_and_errors():
    group = np.array(["a", "a", "b", "b"])
    assert disparate_impact([0, 0, 1, 0], group, "a") == np.inf
    assert np.isnan(disparate_impact([0, 0, 0, 0], group, "a"))
    with pytest.raises(ValueError, match="no example belongs to the privileged group 'c'"):
        disparate_impact([0, 1, 1, 0], group, "c")
    with pytest.raises(ValueError, match="same length"):
        disparate_impact([0, 1], group, "a")
