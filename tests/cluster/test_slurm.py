"""The pipeline on a real one-node SLURM cluster, through the profile workflow/profiles/slurm.

The cluster fixture starts munged, slurmctld and slurmd (Debian's Slurm 22.05 and munge 0.5, installed by
tests/cluster/setup.sh) on localhost as root, each in the foreground in its own session, with a minimal slurm.conf
written to /etc/slurm/slurm.conf (the path srun reads inside a job, where the executor plugin drops SLURM_CONF) and
every state, spool, log and socket file in a temporary directory; it stops each daemon by the PID it recorded and
removes the file. What cannot run on these machines, and what the test does instead:

- slurmdbd (it needs a MySQL/MariaDB server): no accounting database, so `sacct` fails. The executor plugin asks
  `squeue` for job states (`--slurm-status-command squeue`, MinJobAge far above 3x the first status check), and the
  evidence that jobs went through sbatch comes from slurmctld itself: the job completion log (jobcomp/filetxt, one
  line per finished job), `squeue --states=all` and `scontrol show job` (BatchFlag=1: a batch job, i.e. sbatch).
- cgroups: ProctrackType=proctrack/linuxproc, TaskPlugin=task/none, JobAcctGatherType=jobacct_gather/none. SLURM
  schedules by the jobs' CPU and memory requests but does not enforce them, and records no usage per job.

The test runs the quick-scale spine (Figures 1a and 9a of the IBU study) on tiny data twice, locally and through
`--executor slurm`, and compares every result file byte for byte.
"""

import hashlib
import importlib.metadata
import importlib.util
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PROFILE = ROOT / "workflow" / "profiles" / "slurm"
SPINE = ["results/ibu_consistency/figures/fig09a.pdf", "results/ibu_consistency/figures/fig01a.pdf"]
SLURM_CONF = Path("/etc/slurm/slurm.conf")
MARKER = "# Written by privest tests/cluster/test_slurm.py for its one-node test cluster; removed when it stops."
COMMANDS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo", "scancel")
SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
STATUS_SECONDS = 2  # the plugin's first status check; MinJobAge must be at least 3x this for squeue to be trusted
MIN_JOB_AGE = 3600  # finished jobs stay in squeue/scontrol this long: the whole test
RUN_TIMEOUT = 900  # seconds for the SLURM run, then SIGTERM, then SIGKILL 30 s later (timeout -k)


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


workflow_tests = load("privest_test_workflow", ROOT / "tests" / "test_workflow.py")
count_submissions = load("privest_count_submissions", PROFILE / "count_submissions.py")


def unavailable() -> str | None:
    """Why this machine cannot run the cluster, or None."""
    missing = [command for command in COMMANDS if shutil.which(command, path=SEARCH_PATH) is None]
    if missing:
        status = Path(os.environ.get("PRIVEST_CLUSTER_SETUP", "/nonexistent"))
        said = status.read_text().strip() if status.is_file() else "tests/cluster/setup.sh was not run"
        return f"SLURM/munge commands missing ({', '.join(missing)}); tests/cluster/setup.sh: {said}"
    if os.geteuid() != 0:
        return "the test cluster's daemons run as root (SlurmUser=root, SlurmdUser=root): run as root"
    return None


pytestmark = [
    pytest.mark.skipif(unavailable() is not None, reason=unavailable() or ""),
]
plugin = pytest.importorskip("snakemake_executor_plugin_slurm", reason="needs pip install -e '.[cluster]'")


def command(name: str) -> str:
    return shutil.which(name, path=SEARCH_PATH) or name


def free_ports() -> tuple[int, int]:
    """Two distinct free TCP ports on localhost (slurmctld's and slurmd's)."""
    with socket.socket() as a, socket.socket() as b:
        a.bind(("127.0.0.1", 0))
        b.bind(("127.0.0.1", 0))
        return a.getsockname()[1], b.getsockname()[1]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def digests(directory: Path) -> dict[str, str]:
    """sha256 of every file under a directory, by relative path."""
    return {p.relative_to(directory).as_posix(): sha256(p) for p in sorted(directory.rglob("*")) if p.is_file()}


@dataclass
class Cluster:
    directory: Path
    env: dict[str, str]
    cpus: int
    memory_mb: int
    versions: dict[str, str]

    def run(self, *args: str) -> str:
        result = subprocess.run([command(args[0]), *args[1:]], env=self.env, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            raise AssertionError(f"{' '.join(args)} failed: {result.stdout}{result.stderr}")
        return result.stdout

    def jobcomp(self) -> list[dict[str, str]]:
        """slurmctld's job completion log: one record per finished job."""
        log = self.directory / "jobcomp.txt"
        lines = log.read_text().splitlines() if log.exists() else []
        return [dict(re.findall(r"(\w+)=(\S*)", line)) for line in lines if line.strip()]


def node_line() -> tuple[str, int, int]:
    """This machine as slurmd sees it: the NodeName=... line of `slurmd -C`, its CPUs and its memory (MB)."""
    line = subprocess.run([command("slurmd"), "-C"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
    fields = dict(re.findall(r"(\w+)=(\S+)", line))
    return line, int(fields["CPUs"]), int(fields["RealMemory"])


def slurm_conf(directory: Path, node: str, ports: tuple[int, int]) -> str:
    """A minimal slurm.conf: one node (this machine, at 127.0.0.1), one partition, no cgroups, no accounting."""
    host = re.search(r"NodeName=(\S+)", node).group(1)
    return "\n".join([
        MARKER,
        "ClusterName=privest",
        f"SlurmctldHost={host}(127.0.0.1)",
        f"SlurmctldPort={ports[0]}",
        f"SlurmdPort={ports[1]}",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"AuthInfo=socket={directory / 'munge' / 'munge.socket'}",
        "SlurmUser=root",
        "SlurmdUser=root",
        f"StateSaveLocation={directory / 'state'}",
        f"SlurmdSpoolDir={directory / 'spool'}",
        f"SlurmctldPidFile={directory / 'slurmctld.pid'}",
        f"SlurmdPidFile={directory / 'slurmd.pid'}",
        f"SlurmctldLogFile={directory / 'slurmctld.log'}",
        f"SlurmdLogFile={directory / 'slurmd.log'}",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "JobCompType=jobcomp/filetxt",
        f"JobCompLoc={directory / 'jobcomp.txt'}",
        "SchedulerType=sched/backfill",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core_Memory",
        "DefMemPerCPU=500",
        f"MinJobAge={MIN_JOB_AGE}",
        "ReturnToService=2",
        "MpiDefault=none",
        "MailProg=/bin/true",
        f"{node} NodeAddr=127.0.0.1 State=UNKNOWN",
        "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
        "",
    ])


def start(argv: list[str], directory: Path, name: str, env: dict[str, str]) -> subprocess.Popen:
    """A daemon in the foreground in its own session; its PID is recorded in pids.txt."""
    with open(directory / f"{name}.out", "w") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    with open(directory / "pids.txt", "a") as pids:
        pids.write(f"{name} {process.pid}\n")
    return process


def stop(process: subprocess.Popen) -> None:
    """SIGTERM to the daemon's process group (the PID recorded at start), SIGKILL if it has not exited in 30 s."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


def wait_for(what: str, ready, processes: list[subprocess.Popen], directory: Path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for process in processes:
            if process.poll() is not None:
                logs = {p.name: p.read_text()[-1500:] for p in directory.glob("*.out")}
                raise AssertionError(f"{process.args[0]} exited ({process.returncode}) before {what}: {logs}")
        if ready():
            return
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def output(env: dict[str, str], *argv: str) -> str:
    """What a command prints on stdout, whether or not it fails (a daemon may not answer yet)."""
    return subprocess.run([command(argv[0]), *argv[1:]], env=env, capture_output=True, text=True, timeout=30).stdout


def version(*argv: str) -> str:
    result = subprocess.run([command(argv[0]), *argv[1:]], capture_output=True, text=True)
    return (result.stdout + result.stderr).strip().splitlines()[0]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """munged, slurmctld and slurmd on localhost, stopped (and slurm.conf removed) when the module's tests are done."""
    if SLURM_CONF.exists() and not SLURM_CONF.read_text().startswith(MARKER):
        pytest.fail(f"{SLURM_CONF} exists and was not written by this test: this machine has its own SLURM; the test "
                    "will not replace its configuration")
    directory = tmp_path_factory.mktemp("slurm")
    for sub in ("state", "spool", "munge"):
        (directory / sub).mkdir()
    (directory / "munge").chmod(0o755)
    key = directory / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o600)
    node, cpus, memory_mb = node_line()
    env = {**os.environ, "SLURM_CONF": str(SLURM_CONF), "PYTHONHASHSEED": "0"}
    processes: list[subprocess.Popen] = []
    wrote_conf = False
    try:
        socket_path = directory / "munge" / "munge.socket"
        processes.append(start(
            [command("munged"), "--foreground", "--force", f"--socket={socket_path}", f"--key-file={key}",
             f"--pid-file={directory / 'munged.pid'}", f"--log-file={directory / 'munged.log'}",
             f"--seed-file={directory / 'munged.seed'}"], directory, "munged", env))
        wait_for("munged's socket", socket_path.exists, processes, directory)
        SLURM_CONF.parent.mkdir(parents=True, exist_ok=True)
        SLURM_CONF.write_text(slurm_conf(directory, node, free_ports()))
        wrote_conf = True
        processes.append(start([command("slurmctld"), "-D"], directory, "slurmctld", env))
        wait_for("slurmctld to answer", lambda: "UP" in output(env, "scontrol", "ping"), processes, directory)
        processes.append(start([command("slurmd"), "-D"], directory, "slurmd", env))
        wait_for("the node to be idle", lambda: output(env, "sinfo", "-h", "-N", "-o", "%T").strip() == "idle",
                 processes, directory)
        versions = {"slurmctld": version("slurmctld", "-V"), "slurmd": version("slurmd", "-V"),
                    "sbatch": version("sbatch", "--version"), "munged": version("munged", "--version"),
                    "executor plugin": importlib.metadata.version("snakemake-executor-plugin-slurm"),
                    "snakemake": importlib.metadata.version("snakemake")}
        yield Cluster(directory, env, cpus, memory_mb, versions)
    finally:
        if processes and processes[-1].poll() is None and len(processes) == 3:
            ids = output(env, "squeue", "-h", "-o", "%i", "--states=PENDING,RUNNING,CONFIGURING").split()
            if ids:
                subprocess.run([command("scancel"), *ids], env=env, check=False)
                time.sleep(5)
        for process in reversed(processes):
            stop(process)
        if wrote_conf and SLURM_CONF.exists() and SLURM_CONF.read_text().startswith(MARKER):
            SLURM_CONF.unlink()


def site_options(cluster: Cluster) -> list[str]:
    """What this one-node test cluster needs besides the profile: job states from squeue (no slurmdbd) checked 2 s
    after submission, a short latency wait (one file system), and group jobs no wider than the node (the profile's
    group sizes are for cluster nodes). `--resources` takes the rest of the line: it comes last."""
    return ["--slurm-status-command", "squeue", "--slurm-init-seconds-before-status-checks", str(STATUS_SECONDS),
            "--latency-wait", "5", "--resources", f"cpus_per_task={cluster.cpus}", f"mem_mb={cluster.memory_mb}"]


def test_the_spine_runs_through_sbatch_byte_identical_to_a_local_run(cluster, tmp_path):
    workflow_tests.write_tiny_mirror(tmp_path / "mirror")
    config = yaml.safe_dump(workflow_tests.tiny_config(tmp_path / "mirror"))
    local, slurm = tmp_path / "local", tmp_path / "slurm"
    for directory in (local, slurm):
        directory.mkdir()
        (directory / "config.yaml").write_text(config)
    expected = count_submissions.count(slurm, "quick", SPINE, grouped=True, extra=tuple(site_options(cluster)))
    ungrouped = count_submissions.count(slurm, "quick", SPINE, grouped=False, extra=tuple(site_options(cluster)))
    shutil.rmtree(slurm / ".snakemake", ignore_errors=True)

    started = time.perf_counter()
    workflow_tests.snakemake(*SPINE, "--cores", str(cluster.cpus), "--directory", str(local), cwd=local)
    local_seconds = time.perf_counter() - started

    started = time.perf_counter()
    result = subprocess.run(
        ["timeout", "-k", "30", str(RUN_TIMEOUT), sys.executable, "-m", "snakemake", *SPINE, "--snakefile",
         str(ROOT / "Snakefile"), "--directory", str(slurm), "--profile", str(PROFILE), "--config", "scale=quick",
         *site_options(cluster)],
        cwd=slurm, env=cluster.env, capture_output=True, text=True)
    slurm_seconds = time.perf_counter() - started
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"SLURM run failed ({result.returncode}):\n{output[-6000:]}"

    # Every submission went through sbatch: the plugin's job ids are exactly the finished batch jobs of this run that
    # slurmctld reports, each COMPLETED, as many as the dry run counts (local rules never reach sbatch).
    run_id = re.search(r"SLURM run ID: (\S+)", output).group(1)
    submitted = re.findall(r"has been submitted with SLURM jobid (\d+)", output)
    assert len(submitted) == len(set(submitted)) == expected
    finished = {r["JobId"]: r for r in cluster.jobcomp() if r.get("Name") == run_id}
    assert set(finished) == set(submitted), (finished, submitted)
    assert {r["JobState"] for r in finished.values()} == {"COMPLETED"}
    queue = dict(line.split("|") for line in cluster.run("squeue", "--states=all", "--noheader", "--format=%i|%T",
                                                         "--name", run_id).split())
    assert queue == dict.fromkeys(submitted, "COMPLETED")
    for job in submitted:
        record = cluster.run("scontrol", "show", "job", "--oneliner", job)
        assert "BatchFlag=1" in record and "JobState=COMPLETED" in record and f"JobName={run_id}" in record

    # Byte for byte: the same files, the same bytes.
    local_files, slurm_files = digests(local / "results"), digests(slurm / "results")
    assert sorted(slurm_files) == sorted(local_files)
    assert slurm_files == local_files, [p for p in local_files if slurm_files[p] != local_files[p]]

    print(f"\nversions: {cluster.versions}")
    print(f"node: {cluster.cpus} CPUs, {cluster.memory_mb} MB")
    print(f"sbatch job ids of run {run_id}: {', '.join(submitted)} ({len(submitted)} submissions with grouping; "
          f"{ungrouped} without)")
    print(f"jobcomp: {[(r['JobId'], r['JobState'], r['NodeList']) for r in finished.values()]}")
    print(f"local run {local_seconds:.1f} s, SLURM run {slurm_seconds:.1f} s; {len(local_files)} result files "
          "byte-identical")


@pytest.mark.parametrize("scale", ["quick", "paper"])
def test_grouping_cuts_the_sbatch_submissions(tmp_path, scale):
    (tmp_path / "config.yaml").write_text((ROOT / "config.yaml").read_text())
    grouped = count_submissions.count(tmp_path, scale, [], grouped=True)
    single = count_submissions.count(tmp_path, scale, [], grouped=False)
    print(f"\n{scale}: {single} sbatch submissions without grouping, {grouped} with the profile's grouping")
    assert 0 < grouped < single
