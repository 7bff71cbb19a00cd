#!/usr/bin/env python3
"""Validate the Kubernetes example (an MPI Operator MPIJob) against the MPIJob CRD schema.

Usage:
  kubernetes_test.py --manifest examples/kubernetes/fabscope-mpijob.yaml \
                     --schema test/fixtures/kubernetes/mpijob-v2beta1.schema.json

What it checks:
1. Every MPIJob document validates against the CRD's openAPIV3Schema (v2beta1),
   handled the way the API server handles it:
   - x-kubernetes-int-or-string / format int-or-string: an integer or a string;
   - unknown fields are errors: where a schema node is an object and has no
     additionalProperties and no x-kubernetes-preserve-unknown-fields, no field
     outside its properties is allowed (the API server prunes them; kubectl's
     default strict field validation rejects them), so a misspelling fails;
   - the top-level metadata is checked as an ObjectMeta (known fields, name);
   - x-kubernetes-list-type map / set: no two items with the same key / value;
   - formats int32, int64 (range) and date-time;
   - nullable: null allowed.
2. What the MPI Operator's own validation checks (pkg/apis/kubeflow/validation):
   Launcher replicas 1, Worker replicas >= 1, restart policies, containers,
   cleanPodPolicy, mpiImplementation, the worker hostname a DNS-1035 label.
3. What the example must do for fabscope: kind/apiVersion, Launcher and Worker,
   the Worker requests nvidia.com/gpu (one per slot), the Launcher runs mpirun
   ... fabscope diagnose with --json and --html under a mounted directory that
   rank 0 (on a Worker) also mounts from the same claim, -np = slotsPerWorker x
   Worker replicas, the ssh port the Workers listen on is the one mpirun uses.
4. The validator bites: copies of the manifest with a misspelled field
   (slotsPerWorkr, and one deep inside the pod template), a wrong type
   (replicas: "two"), a malformed quantity and a duplicate container name must
   each FAIL the schema validation.

Exit 0 when everything holds, 1 with the failures listed.
Needs python3-yaml and python3-jsonschema (Debian packages).
"""

import argparse
import copy
import datetime
import json
import re
import sys

try:
    import yaml
    import jsonschema
    from jsonschema import validators
except ImportError as exc:  # pragma: no cover - environment problem
    print(f"FAIL: {exc}: install python3-yaml and python3-jsonschema", file=sys.stderr)
    sys.exit(1)


# --------------------------------------------------------------------------
# YAML as the API server reads it: a key given twice is an error (strict field
# validation reports it), where PyYAML would silently keep the last one.

class StrictLoader(yaml.SafeLoader):
    pass


def _construct_mapping(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return yaml.SafeLoader.construct_mapping(loader, node, deep)


StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


# --------------------------------------------------------------------------
# The CRD schema, made to act as the API server does

def _int_or_string():
    return [{"type": "integer"}, {"type": "string"}]


# ObjectMeta as the API server validates a top-level object's metadata (the CRD
# schema only says `type: object` there). Field names from
# k8s.io/apimachinery/pkg/apis/meta/v1 ObjectMeta.
_DNS1123_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
_DNS1123_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
_STRING_MAP = {"type": "object", "additionalProperties": {"type": "string"}}
OBJECT_META = {
    "type": "object",
    "additionalProperties": False,
    "anyOf": [{"required": ["name"]}, {"required": ["generateName"]}],
    "properties": {
        "name": {"type": "string", "maxLength": 253, "pattern": _DNS1123_SUBDOMAIN},
        "generateName": {"type": "string"},
        "namespace": {"type": "string", "maxLength": 63, "pattern": _DNS1123_LABEL},
        "labels": _STRING_MAP,
        "annotations": _STRING_MAP,
        "finalizers": {"type": "array", "items": {"type": "string"}},
        "ownerReferences": {"type": "array", "items": {"type": "object"}},
        "uid": {"type": "string"},
        "resourceVersion": {"type": "string"},
        "generation": {"type": "integer"},
        "selfLink": {"type": "string"},
        "creationTimestamp": {"type": ["string", "null"]},
        "deletionTimestamp": {"type": ["string", "null"]},
        "deletionGracePeriodSeconds": {"type": "integer"},
        "managedFields": {"type": "array", "items": {"type": "object"}},
    },
}


def strict_schema(schema):
    """Return a copy of a CRD openAPIV3Schema that a Draft 4 validator checks
    the way the API server does (see the module docstring)."""
    schema = copy.deepcopy(schema)

    def visit(node, is_root_metadata=False):
        if not isinstance(node, dict):
            return
        if is_root_metadata:
            node.clear()
            node.update(copy.deepcopy(OBJECT_META))
            return
        # int-or-string: the API server accepts an integer or a string.
        if node.get("x-kubernetes-int-or-string") or node.get("format") == "int-or-string":
            if node.get("format") == "int-or-string":
                del node["format"]
            node.pop("type", None)
            if "anyOf" not in node:
                node["anyOf"] = _int_or_string()
        # OpenAPI's nullable: null is a value too.
        if node.get("nullable") is True and isinstance(node.get("type"), str):
            node["type"] = [node["type"], "null"]
        # Embedded resources carry apiVersion and kind.
        if node.get("x-kubernetes-embedded-resource"):
            node.setdefault("required", [])
            for key in ("apiVersion", "kind"):
                if key not in node["required"]:
                    node["required"].append(key)
        # Unknown fields: pruned by the API server, rejected by strict field
        # validation. Objects that list their fields allow no others.
        is_object = node.get("type") == "object" or "properties" in node
        if (is_object and "additionalProperties" not in node
                and not node.get("x-kubernetes-preserve-unknown-fields")):
            node["additionalProperties"] = False
        for key, sub in node.get("properties", {}).items():
            visit(sub, is_root_metadata=(node is schema and key == "metadata"))
        if isinstance(node.get("items"), dict):
            visit(node["items"])
        if isinstance(node.get("additionalProperties"), dict):
            visit(node["additionalProperties"])
        for key in ("anyOf", "allOf", "oneOf"):
            for sub in node.get(key, []):
                visit(sub)
        if isinstance(node.get("not"), dict):
            visit(node["not"])

    visit(schema)
    return schema


def _list_type(validator, list_type, instance, schema):
    """x-kubernetes-list-type: map items are unique by their keys, set items by value."""
    if not validator.is_type(instance, "array"):
        return
    if list_type == "set":
        seen = []
        for item in instance:
            if item in seen:
                yield jsonschema.ValidationError(f"duplicate entry {item!r} in a list-type set")
            seen.append(item)
    elif list_type == "map":
        keys = schema.get("x-kubernetes-list-map-keys", [])
        item_props = (schema.get("items") or {}).get("properties", {})
        seen = {}
        for index, item in enumerate(instance):
            if not isinstance(item, dict):
                continue
            values = []
            for key in keys:
                if key in item:
                    values.append(item[key])
                elif "default" in item_props.get(key, {}):
                    values.append(item_props[key]["default"])
                else:
                    yield jsonschema.ValidationError(
                        f"item {index} lacks the list-map key {key!r}")
                    values = None
                    break
            if values is None:
                continue
            key_tuple = json.dumps(values, sort_keys=True)
            if key_tuple in seen:
                yield jsonschema.ValidationError(
                    f"items {seen[key_tuple]} and {index} have the same key "
                    f"{dict(zip(keys, values))} in a list-type map")
            else:
                seen[key_tuple] = index


_FORMATS = jsonschema.FormatChecker(formats=())


@_FORMATS.checks("int32")
def _is_int32(value):
    return not isinstance(value, int) or isinstance(value, bool) or -2**31 <= value < 2**31


@_FORMATS.checks("int64")
def _is_int64(value):
    return not isinstance(value, int) or isinstance(value, bool) or -2**63 <= value < 2**63


@_FORMATS.checks("date-time", raises=ValueError)
def _is_date_time(value):
    if not isinstance(value, str):
        return True
    datetime.datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    return True


KubeValidator = validators.extend(
    jsonschema.Draft4Validator, {"x-kubernetes-list-type": _list_type})


def schema_errors(validator, document):
    """Each schema error as 'path: message', shortest path first."""
    errors = sorted(validator.iter_errors(document), key=lambda e: (len(e.absolute_path), e.message))
    out = []
    for err in errors:
        path = ".".join(str(p) for p in err.absolute_path) or "<root>"
        message = err.message
        if len(message) > 300:
            message = message[:300] + "..."
        out.append(f"{path}: {message}")
    return out


# --------------------------------------------------------------------------
# The MPIJob itself

class Checks:
    def __init__(self):
        self.failures = []
        self.passed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print(f"  ok    {what}")
        else:
            self.failures.append(f"{what}{': ' + detail if detail else ''}")
            print(f"  FAIL  {what}{': ' + detail if detail else ''}")
        return ok


def _get(obj, *path, default=None):
    for key in path:
        if isinstance(obj, dict) and key in obj:
            obj = obj[key]
        elif isinstance(obj, list) and isinstance(key, int) and -len(obj) <= key < len(obj):
            obj = obj[key]
        else:
            return default
    return obj


def _option(argv, name):
    """The value after `name` (or of `name=value`) in argv, else None."""
    for i, arg in enumerate(argv):
        if arg == name and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(name + "="):
            return arg[len(name) + 1:]
    return None


def _mounts(pod_spec, container):
    """mountPath -> the pod volume mounted there."""
    volumes = {v.get("name"): v for v in (pod_spec.get("volumes") or [])}
    return {m.get("mountPath"): volumes.get(m.get("name"), {})
            for m in (container.get("volumeMounts") or [])}


def _mount_for(path, mounts):
    """The mount whose directory holds `path` (the longest match), else (None, None)."""
    best = (None, None)
    for mount_path, volume in mounts.items():
        if not mount_path:
            continue
        prefix = mount_path.rstrip("/") + "/"
        if path.startswith(prefix) and (best[0] is None or len(mount_path) > len(best[0])):
            best = (mount_path, volume)
    return best


def _claim(volume):
    return _get(volume, "persistentVolumeClaim", "claimName")


def check_operator_rules(c, job):
    """The MPI Operator's validation (pkg/apis/kubeflow/validation) after its defaults."""
    spec = job.get("spec") or {}
    replica_specs = spec.get("mpiReplicaSpecs") or {}
    launcher = replica_specs.get("Launcher")
    worker = replica_specs.get("Worker")
    c.check(set(replica_specs) <= {"Launcher", "Worker"},
            "mpiReplicaSpecs has only Launcher and Worker", f"has {sorted(replica_specs)}")
    c.check(isinstance(launcher, dict), "mpiReplicaSpecs.Launcher exists")
    c.check(isinstance(worker, dict), "mpiReplicaSpecs.Worker exists")
    if isinstance(launcher, dict):
        c.check(launcher.get("replicas", 1) == 1, "Launcher replicas is 1",
                f"got {launcher.get('replicas')!r}")
        c.check(launcher.get("restartPolicy", "OnFailure") in ("Never", "OnFailure"),
                "Launcher restartPolicy is Never or OnFailure", f"got {launcher.get('restartPolicy')!r}")
        c.check(bool(_get(launcher, "template", "spec", "containers")), "Launcher has a container")
    if isinstance(worker, dict):
        replicas = worker.get("replicas", 0)
        c.check(isinstance(replicas, int) and replicas >= 1, "Worker replicas >= 1", f"got {replicas!r}")
        c.check(worker.get("restartPolicy", "Never") in ("Never", "OnFailure"),
                "Worker restartPolicy is Never or OnFailure", f"got {worker.get('restartPolicy')!r}")
        c.check(bool(_get(worker, "template", "spec", "containers")), "Worker has a container")
    slots = spec.get("slotsPerWorker", 1)
    c.check(isinstance(slots, int) and slots >= 0, "slotsPerWorker is a non-negative integer", f"got {slots!r}")
    c.check(spec.get("sshAuthMountPath", "/root/.ssh") != "", "sshAuthMountPath is not empty")
    c.check(spec.get("mpiImplementation", "OpenMPI") in ("OpenMPI", "Intel", "MPICH"),
            "mpiImplementation is OpenMPI, Intel or MPICH", f"got {spec.get('mpiImplementation')!r}")
    c.check(spec.get("launcherCreationPolicy", "AtStartup") in ("AtStartup", "WaitForWorkersReady"),
            "launcherCreationPolicy is AtStartup or WaitForWorkersReady",
            f"got {spec.get('launcherCreationPolicy')!r}")
    c.check(_get(spec, "runPolicy", "cleanPodPolicy", default="None") in ("None", "Running", "All"),
            "runPolicy.cleanPodPolicy is None, Running or All")
    for key in ("ttlSecondsAfterFinished", "activeDeadlineSeconds", "backoffLimit"):
        value = _get(spec, "runPolicy", key)
        if value is not None:
            c.check(isinstance(value, int) and value >= 0, f"runPolicy.{key} is non-negative", f"got {value!r}")
    name = _get(job, "metadata", "name", default="")
    workers = worker.get("replicas", 1) if isinstance(worker, dict) else 1
    host = f"{name}-worker-{max(int(workers) if isinstance(workers, int) else 1, 1) - 1}"
    c.check(len(host) <= 63 and re.match(r"^[a-z]([-a-z0-9]*[a-z0-9])?$", host) is not None,
            f"the last worker's hostname {host!r} is a DNS-1035 label")


def check_fabscope_job(c, job, claims):
    """What the example must do to run fabscope diagnose and keep its reports."""
    c.check(job.get("apiVersion") == "kubeflow.org/v2beta1", "apiVersion is kubeflow.org/v2beta1",
            f"got {job.get('apiVersion')!r}")
    c.check(job.get("kind") == "MPIJob", "kind is MPIJob", f"got {job.get('kind')!r}")
    spec = job.get("spec") or {}
    launcher = _get(spec, "mpiReplicaSpecs", "Launcher", default={})
    worker = _get(spec, "mpiReplicaSpecs", "Worker", default={})
    launcher_pod = _get(launcher, "template", "spec", default={})
    worker_pod = _get(worker, "template", "spec", default={})
    # The operator configures the first container of each pod.
    launcher_c = _get(launcher_pod, "containers", 0, default={})
    worker_c = _get(worker_pod, "containers", 0, default={})

    slots = spec.get("slotsPerWorker", 1)
    workers = worker.get("replicas", 0)

    gpus = _get(worker_c, "resources", "limits", "nvidia.com/gpu")
    c.check(gpus is not None, "Worker limits request nvidia.com/gpu")
    if gpus is not None:
        c.check(str(gpus) == str(slots),
                "Worker nvidia.com/gpu = slotsPerWorker (fabscope's nccl backend: one GPU per rank)",
                f"nvidia.com/gpu {gpus!r}, slotsPerWorker {slots!r}")
    rdma = [k for k in (_get(worker_c, "resources", "limits", default={}) or {})
            if k != "nvidia.com/gpu" and ("rdma" in k.lower() or "sriov" in k.lower())]
    c.check(bool(rdma), "Worker limits request an RDMA device-plugin resource", "none found")
    c.check("IPC_LOCK" in (_get(worker_c, "securityContext", "capabilities", "add", default=[]) or []),
            "Worker adds the IPC_LOCK capability (RDMA memory registration)")
    shm = _mounts(worker_pod, worker_c).get("/dev/shm", {})
    c.check(_get(shm, "emptyDir", "medium") == "Memory", "Worker /dev/shm is an emptyDir of medium Memory")

    argv = [str(a) for a in (launcher_c.get("command") or []) + (launcher_c.get("args") or [])]
    print(f"        launcher runs: {' '.join(argv)}")
    c.check(bool(argv) and argv[0].rsplit("/", 1)[-1] == "mpirun", "Launcher command is mpirun",
            f"got {argv[:1]}")
    try:
        sub = argv.index("diagnose")
        ok = sub > 0 and argv[sub - 1].rsplit("/", 1)[-1] == "fabscope"
    except ValueError:
        sub, ok = -1, False
    c.check(ok, "Launcher runs `fabscope diagnose`")
    fab_argv = argv[sub + 1:] if ok else []
    mpirun_argv = argv[:sub - 1] if ok else argv

    np_value = _option(mpirun_argv, "-np") or _option(mpirun_argv, "-n") or _option(mpirun_argv, "--np")
    expected = slots * workers if isinstance(slots, int) and isinstance(workers, int) else None
    c.check(np_value is not None and expected is not None and np_value.isdigit() and int(np_value) == expected,
            "mpirun -np = slotsPerWorker x Worker replicas",
            f"-np {np_value!r}, slotsPerWorker {slots!r} x replicas {workers!r} = {expected!r}")
    c.check(any(a == "-x" and b == "NCCL_DEBUG=WARN" for a, b in zip(mpirun_argv, mpirun_argv[1:])),
            "mpirun sets NCCL_DEBUG=WARN on the ranks (-x)")
    c.check(_option(fab_argv, "--backend") == "nccl", "fabscope diagnose --backend nccl",
            f"got {_option(fab_argv, '--backend')!r}")

    launcher_mounts = _mounts(launcher_pod, launcher_c)
    worker_mounts = _mounts(worker_pod, worker_c)
    for flag in ("--json", "--html"):
        path = _option(fab_argv, flag)
        if not c.check(path is not None and path.startswith("/"), f"fabscope diagnose {flag} names an absolute path",
                       f"got {path!r}"):
            continue
        l_dir, l_vol = _mount_for(path, launcher_mounts)
        w_dir, w_vol = _mount_for(path, worker_mounts)
        c.check(l_dir is not None, f"{flag} {path} is under a directory mounted on the Launcher",
                f"Launcher mounts {sorted(launcher_mounts)}")
        # fabscope's rank 0 writes the reports, and rank 0 runs on a Worker.
        c.check(w_dir is not None, f"{flag} {path} is under a directory mounted on the Workers (rank 0 writes it)",
                f"Worker mounts {sorted(worker_mounts)}")
        if l_dir is not None and w_dir is not None:
            same = _claim(l_vol) is not None and _claim(l_vol) == _claim(w_vol)
            c.check(same, f"{flag}: Launcher and Workers mount the same PersistentVolumeClaim",
                    f"Launcher {_claim(l_vol)!r}, Worker {_claim(w_vol)!r}")
            claim = _claim(l_vol)
            if claim is not None:
                c.check(claim in claims, f"{flag}: claim {claim!r} is defined in the manifest")
                if claim in claims:
                    modes = _get(claims[claim], "spec", "accessModes", default=[]) or []
                    c.check("ReadWriteMany" in modes, f"claim {claim!r} is ReadWriteMany (Workers and Launcher share it)",
                            f"accessModes {modes}")

    # sshd port: what the Workers listen on is what mpirun connects to.
    worker_argv = [str(a) for a in (worker_c.get("command") or []) + (worker_c.get("args") or [])]
    if worker_argv and worker_argv[0].endswith("sshd"):
        port = _option(worker_argv, "-p") or "22"
        # `--mca plm_rsh_args "..."` on the command line overrides the
        # operator's OMPI_MCA_plm_rsh_args ("-o ConnectionAttempts=10").
        rsh = _option(mpirun_argv, "plm_rsh_args") or "-o ConnectionAttempts=10"
        rsh_port = re.search(r"(?:^|\s)-p\s*(\d+)", rsh)
        c.check((rsh_port.group(1) if rsh_port else "22") == port,
                "mpirun's ssh port (plm_rsh_args -p) is the Workers' sshd port",
                f"sshd -p {port}, plm_rsh_args {rsh!r}")
        if worker_pod.get("hostNetwork"):
            c.check(port != "22", "on hostNetwork the Workers' sshd avoids the node's port 22")


# --------------------------------------------------------------------------
# The negative cases: the validator has to reject these

def _worker_container(job):
    return job["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]


def _mutate_slots(job):
    job["spec"]["slotsPerWorkr"] = job["spec"].pop("slotsPerWorker", 8)


def _mutate_replicas(job):
    job["spec"]["mpiReplicaSpecs"]["Worker"]["replicas"] = "two"


def _mutate_volume_mount(job):
    container = _worker_container(job)
    container["volumeMount"] = container.pop("volumeMounts", [])


def _mutate_quantity(job):
    _worker_container(job).setdefault("resources", {}).setdefault("limits", {})["nvidia.com/gpu"] = "8 GPUs"


def _mutate_duplicate_container(job):
    containers = job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"]
    containers.append(copy.deepcopy(containers[0]))


def _mutate_int32(job):
    job["spec"]["slotsPerWorker"] = 2**31


def _mutate_metadata(job):
    job["metadata"]["nmae"] = job["metadata"].get("name")


# (what, mutation, the error's path, a word the error must contain)
MUTATIONS = [
    ("misspelled spec field slotsPerWorkr", _mutate_slots, "spec", "slotsPerWorkr"),
    ('wrong type: Worker replicas: "two"', _mutate_replicas,
     "spec.mpiReplicaSpecs.Worker.replicas", "integer"),
    ("misspelled pod-template field volumeMount", _mutate_volume_mount,
     "spec.mpiReplicaSpecs.Worker.template.spec.containers.0", "volumeMount"),
    ('malformed quantity nvidia.com/gpu: "8 GPUs"', _mutate_quantity,
     "spec.mpiReplicaSpecs.Worker.template.spec.containers.0.resources.limits.nvidia.com/gpu", "match"),
    ("duplicate container name (list-type map)", _mutate_duplicate_container,
     "spec.mpiReplicaSpecs.Launcher.template.spec.containers", "same key"),
    ("slotsPerWorker beyond int32", _mutate_int32, "spec.slotsPerWorker", "int32"),
    ("misspelled metadata field nmae", _mutate_metadata, "metadata", "nmae"),
]


def check_validator_bites(c, raw_schema, validator, job):
    # The CRD as published accepts unknown fields (the API server prunes them);
    # show that the strictness comes from the preprocessing.
    raw = KubeValidator(raw_schema, format_checker=_FORMATS)
    bad = copy.deepcopy(job)
    _mutate_slots(bad)
    raw_errors = schema_errors(raw, bad)
    print(f"        (the CRD schema as published {'rejects' if raw_errors else 'accepts'} slotsPerWorkr"
          f"{': unexpected' if raw_errors else '; the API server prunes it, strict field validation rejects it'})")
    for what, mutate, where, word in MUTATIONS:
        bad = copy.deepcopy(job)
        try:
            mutate(bad)
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            c.check(False, f"rejects {what}", f"cannot make the broken copy: no {exc}")
            continue
        errors = schema_errors(validator, bad)
        hit = [e for e in errors if e.split(": ", 1)[0] == where and word in e]
        c.check(bool(hit), f"rejects {what}",
                "accepted" if not errors else f"not for the expected reason: {errors[:3]}")
        if hit:
            print(f"        -> {hit[0][:160]}")


# --------------------------------------------------------------------------

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--manifest", required=True, help="the example's YAML (several documents)")
    parser.add_argument("--schema", required=True, help="the MPIJob v2beta1 openAPIV3Schema as JSON")
    args = parser.parse_args(argv)

    try:
        with open(args.schema, encoding="utf-8") as f:
            raw_schema = json.load(f)
        with open(args.manifest, encoding="utf-8") as f:
            documents = [d for d in yaml.load_all(f, Loader=StrictLoader) if d is not None]
    except (OSError, ValueError, yaml.YAMLError) as exc:
        print(f"FAIL: cannot read the inputs: {exc}", file=sys.stderr)
        return 1

    print(f"jsonschema {_version()} (Draft 4 validator), PyYAML {yaml.__version__}")
    print(f"schema:   {args.schema}")
    print(f"manifest: {args.manifest} ({len(documents)} documents: "
          f"{', '.join(str(d.get('kind')) if isinstance(d, dict) else type(d).__name__ for d in documents)})")

    schema = strict_schema(raw_schema)
    KubeValidator.check_schema(schema)
    validator = KubeValidator(schema, format_checker=_FORMATS)
    c = Checks()

    c.check(all(isinstance(d, dict) for d in documents), "every document is a mapping")
    documents = [d for d in documents if isinstance(d, dict)]
    for d in documents:
        c.check(isinstance(d.get("apiVersion"), str) and isinstance(d.get("kind"), str)
                and isinstance(_get(d, "metadata", "name"), str),
                f"{d.get('kind')} {_get(d, 'metadata', 'name')!r} has apiVersion, kind and metadata.name")
    claims = {_get(d, "metadata", "name"): d for d in documents
              if d.get("kind") == "PersistentVolumeClaim" and d.get("apiVersion") == "v1"}
    jobs = [d for d in documents if d.get("kind") == "MPIJob"]
    c.check(len(jobs) >= 1, "the manifest holds an MPIJob")

    for job in jobs:
        print(f"MPIJob {_get(job, 'metadata', 'name')!r}: schema")
        errors = schema_errors(validator, job)
        c.check(not errors, "validates against the MPIJob v2beta1 schema (strict)",
                "\n          " + "\n          ".join(errors[:20]))
        print(f"MPIJob {_get(job, 'metadata', 'name')!r}: MPI Operator validation")
        check_operator_rules(c, job)
        print(f"MPIJob {_get(job, 'metadata', 'name')!r}: fabscope")
        check_fabscope_job(c, job, claims)
        print(f"MPIJob {_get(job, 'metadata', 'name')!r}: the validator rejects broken copies")
        if not errors:
            check_validator_bites(c, raw_schema, validator, job)

    print()
    if c.failures:
        print(f"FAIL: {len(c.failures)} of {len(c.failures) + c.passed} checks failed:")
        for failure in c.failures:
            print(f"  - {failure}")
        return 1
    print(f"PASS: {c.passed} checks")
    return 0


def _version():
    try:
        from importlib.metadata import version
        return version("jsonschema")
    except Exception:  # noqa: BLE001 - informational only
        return "?"


if __name__ == "__main__":
    sys.exit(main())
