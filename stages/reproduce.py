"""Stage `reproduce`: when the experiment reproduces a worked example of a course text (`reproduce: <name>`,
set by the presets of conf/experiment/), rerun it with replearn's own algorithms on the vendored reference
data and write metrics/reproduction.json (published beside measured, per quantity) and
results/reproduction.json (with the curves and notes the report draws). Without one, both are empty."""

from replearn.pipeline import paths
from replearn.pipeline.data import write_json
from replearn.pipeline.reproduce import reproduce
from replearn.pipeline.stage import log, run


def main(params: dict) -> None:
    result = reproduce(params)
    write_json(paths.RESULTS / "reproduction.json", result)
    write_json(paths.METRICS / "reproduction.json", result["records"])
    if result["preset"] is None:
        log("reproduce", "no worked example to reproduce (reproduce: null)")
        return
    done = sum(r["reproduced"] for r in result["records"])
    log("reproduce", f"{result['preset']}: {done} of {len(result['records'])} quantities reproduced")


if __name__ == "__main__":
    run("reproduce", main)
