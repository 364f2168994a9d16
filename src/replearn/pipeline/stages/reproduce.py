"""Stage `reproduce`: rerun the course texts' worked examples with replearn's own algorithms on the vendored
reference data -- every one of them (`reproduce: all`, the default experiment) or the one a preset of
conf/experiment/ names (`reproduce: <name>`) -- and write metrics/reproduction.json (published beside measured,
per quantity, with the text and section of its worked example) and results/reproduction.json (with the curves and
notes the report and the reproduction page draw). With `reproduce: null` both are empty."""

from .. import paths
from ..jsonio import write_json
from ..reproduce import reproduce
from ..stage import log


def main(params: dict) -> None:
    result = reproduce(params)
    write_json(paths.RESULTS / "reproduction.json", result)
    write_json(paths.METRICS / "reproduction.json", result["records"])
    if result["preset"] is None:
        log("reproduce", "no worked example to reproduce (reproduce: null)")
        return
    done = sum(r["reproduced"] for r in result["records"])
    presets = f" ({len(result['presets'])} presets)" if "presets" in result else ""
    log("reproduce", f"{result['preset']}{presets}: {done} of {len(result['records'])} quantities reproduced")
