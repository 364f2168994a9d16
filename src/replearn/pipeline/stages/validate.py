"""Stage `validate`: check the whole params.yaml (every key, type, range and name) before any other stage.
It depends on every parameter, so any change (a misspelt `-S +cv.fodls=5` included) is validated even
when no other stage would run. Writes results/config.json, whose content changes only with the schema,
so a valid change of parameters reruns only the stages that read them. Stamps the params.yaml it accepted
(:mod:`replearn.pipeline.gate`), which the later stages trust."""

from .. import paths
from ..config import validation_record
from ..gate import accept
from ..jsonio import write_json
from ..stage import log


def main(params: dict) -> None:
    accept(params)
    write_json(paths.RESULTS / "config.json", validation_record())
    log("validate", f"params.yaml valid: {len(params['dataset'])} dataset(s), {len(params['models'])} model(s)")
