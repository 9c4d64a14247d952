"""The black-box model zoo: named, unfitted, seeded models exactly as the papers specify them.

``make_model(name, random_state=None, **overrides)`` returns an unfitted scikit-learn compatible
estimator; ``list_models()`` says what each name is, which paper it comes from and whether it is
available (XGBoost models need ``pip install interpretopt[xgboost]``). Fit the models on
``Dataset.numeric()`` arrays.

Names: IMD Table 5 ``LR, KN1, KN2, MLP1, MLP2, DT1, DT2, GB, RF1, RF2, GNB``; ABBR ``RF500``;
CRL ``CRL_RF, CRL_ADA, CRL_XGB``; "What changed" ``WC_LR, WC_RF, WC_XGB,
WC_XGB_PRE1``; MTRE-PAN
``MTREPAN_NET`` (:class:`MTREPANNetwork`). Synthetic targets given by a formula:
:class:`CircleTarget` (the MTRE-PAN circle).
"""

from interpretopt.blackbox._mtrepan_net import MTREPANNetwork
from interpretopt.blackbox._targets import CircleTarget
from interpretopt.blackbox._zoo import (
    MODELS,
    ModelSpec,
    ModelUnavailableError,
    list_models,
    make_model,
    model_available,
)

__all__ = [
    "CircleTarget",
    "MODELS",
    "MTREPANNetwork",
    "ModelSpec",
    "ModelUnavailableError",
    "list_models",
    "make_model",
    "model_available",
]
