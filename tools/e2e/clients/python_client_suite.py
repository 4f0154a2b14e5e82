#!/usr/bin/python3
"""Drives a Skiff apiserver with the official Kubernetes Python client (Debian's python3-kubernetes).

Environment: SKIFF_SERVER (https://127.0.0.1:port), SKIFF_TOKEN (a bearer token of a system:masters
user), SKIFF_CA_FILE (the serving CA, PEM). Every served kind goes through the dynamic client
(discovery, CRUD, list paging, every patch type, server-side apply, watch with resume, errors);
the kinds the typed client knows also go through their generated API classes, whose models
deserialize every answer and whose watch sends allowWatchBookmarks=True the way the client does.

Prints one JSON document on stdout: {"client": ..., "results": [{"name", "ok", "error"?}]}. Exits 0
whatever the results (the calling test asserts them); exits 2 only when it cannot start.
"""
import json
import os
import sys
import threading
import time
import traceback

from kubernetes import client, dynamic, watch
from kubernetes.client.rest import ApiException

PREFIX = "py"
NS = "default"
SUITE_LABEL = {"suite": "python-client"}

POD_SPEC = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}


def job(name):
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "labels": dict(SUITE_LABEL)},
            "spec": {"template": {"spec": POD_SPEC}}}


def csi_driver(name):
    return {"apiVersion": "storage.example.io/v1", "kind": "CSIDriver", "metadata": {"name": name, "labels": dict(SUITE_LABEL)},
            "spec": {"attachRequired": False}}


def csi_node(name):
    return {"apiVersion": "storage.example.io/v1", "kind": "CSINode", "metadata": {"name": name, "labels": dict(SUITE_LABEL)},
            "spec": {"drivers": [{"name": "csi.example.io", "nodeID": name}]}}


def pod_template(name):
    return {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": name, "labels": dict(SUITE_LABEL)},
            "template": {"spec": POD_SPEC}}


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": dict(SUITE_LABEL)}, "spec": POD_SPEC}


def node(name):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(SUITE_LABEL)}}


def namespace(name):
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": dict(SUITE_LABEL)}}


def event(name):
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "labels": dict(SUITE_LABEL)},
            "involvedObject": {"kind": "Pod", "namespace": NS, "name": "p"}, "reason": "Test", "message": "m", "type": "Normal"}


def lease(name):
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": name, "labels": dict(SUITE_LABEL)},
            "spec": {"holderIdentity": "h", "leaseDurationSeconds": 40}}


def priority_class(name):
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name, "labels": dict(SUITE_LABEL)},
            "value": 100, "description": "suite"}


# (apiVersion, kind, namespaced, body factory, can delete a collection)
KINDS = [
    ("batch/v1", "Job", True, job, True),
    ("storage.example.io/v1", "CSIDriver", False, csi_driver, True),
    ("storage.example.io/v1", "CSINode", False, csi_node, True),
    ("v1", "PodTemplate", True, pod_template, True),
    ("v1", "Pod", True, pod, True),
    ("v1", "Node", False, node, True),
    ("v1", "Namespace", False, namespace, False),
    ("v1", "Event", True, event, True),
    ("coordination.k8s.io/v1", "Lease", True, lease, True),
    ("scheduling.k8s.io/v1", "PriorityClass", False, priority_class, True),
]

results = []


def check(name, fn):
    try:
        fn()
        results.append({"name": name, "ok": True})
    except Exception as e:  # noqa: BLE001 - every failure is reported, none stops the suite
        detail = e.body if isinstance(e, ApiException) else ""
        results.append({"name": name, "ok": False, "error": f"{type(e).__name__}: {e} {detail}"[:1500],
                        "trace": traceback.format_exc()[-1500:]})


def expect(cond, what):
    if not cond:
        raise AssertionError(what)


def status_of(fn):
    """The Status body of the ApiException fn raises (fails when it raises none)."""
    try:
        fn()
    except ApiException as e:
        body = json.loads(e.body)
        expect(body.get("kind") == "Status" and body.get("code") == e.status, f"not a Status body: {e.body}")
        return body
    raise AssertionError("no error")


def configure():
    cfg = client.Configuration()
    cfg.host = os.environ["SKIFF_SERVER"]
    cfg.api_key = {"authorization": os.environ["SKIFF_TOKEN"]}
    cfg.api_key_prefix = {"authorization": "Bearer"}
    cfg.ssl_ca_cert = os.environ["SKIFF_CA_FILE"]
    return client.ApiClient(cfg)


def names(items):
    return sorted(i["metadata"]["name"] for i in items)


def dynamic_suite(dyn, api_version, kind, namespaced, make, collection_delete):
    res = dyn.resources.get(api_version=api_version, kind=kind)
    ns = NS if namespaced else None
    base = f"{PREFIX}-{kind.lower()}"
    objs = [f"{base}-a", f"{base}-b", f"{base}-c"]
    sel = "suite=python-client"
    tag = f"{kind}: "

    def crud():
        for n in objs:
            created = res.create(body=make(n), namespace=ns).to_dict()
            expect(created["metadata"]["name"] == n and created["metadata"]["uid"], tag + "create answers the object")
        got = res.get(name=objs[0], namespace=ns).to_dict()
        expect(got["kind"] == kind and got["apiVersion"] == api_version, tag + f"get kind/apiVersion {got['kind']} {got['apiVersion']}")
        got["metadata"]["labels"]["replaced"] = "yes"
        replaced = res.replace(body=got, namespace=ns).to_dict()
        expect(replaced["metadata"]["labels"]["replaced"] == "yes", tag + "replace keeps the change")
        expect(int(replaced["metadata"]["resourceVersion"]) > int(got["metadata"]["resourceVersion"]), tag + "replace bumps resourceVersion")
    check(f"{kind} create/get/replace (dynamic)", crud)

    def paging():
        first = res.get(namespace=ns, label_selector=sel, limit=2).to_dict()
        expect(len(first["items"]) == 2, tag + f"limit=2 gives 2 items, got {len(first['items'])}")
        token = first["metadata"].get("continue")
        expect(token, tag + "a continue token")
        rest = res.get(namespace=ns, label_selector=sel, limit=2, _continue=token).to_dict()
        expect(not rest["metadata"].get("continue"), tag + "last page has no continue")
        expect(names(first["items"] + rest["items"]) == objs, tag + f"pages cover the objects: {names(first['items'] + rest['items'])}")
        expect(rest["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"], tag + "pages read at one resourceVersion")
    check(f"{kind} list paging limit/continue (dynamic)", paging)

    def patches():
        n = objs[1]
        out = res.patch(name=n, namespace=ns, body=[{"op": "add", "path": "/metadata/annotations", "value": {"json": "1"}}],
                        content_type="application/json-patch+json").to_dict()
        expect(out["metadata"]["annotations"] == {"json": "1"}, tag + "json patch")
        out = res.patch(name=n, namespace=ns, body={"metadata": {"annotations": {"merge": "1"}}}, content_type="application/merge-patch+json").to_dict()
        expect(out["metadata"]["annotations"] == {"json": "1", "merge": "1"}, tag + "merge patch")
        out = res.patch(name=n, namespace=ns, body={"metadata": {"labels": {"strategic": "1"}}}).to_dict()
        expect(out["metadata"]["labels"].get("strategic") == "1", tag + "strategic merge patch (the client's default)")
        applied = make(n)
        applied["metadata"]["labels"] = {"applied": "1"}
        # This client sends an apply body only as text (its REST layer JSON-encodes bodies of *json types only).
        out = res.server_side_apply(body=json.dumps(applied), name=n, namespace=ns, field_manager="py-apply", force_conflicts=True).to_dict()
        expect(out["metadata"]["labels"].get("applied") == "1", tag + "server-side apply (force=True)")
        managers = [m["manager"] for m in out["metadata"].get("managedFields", [])]
        expect("py-apply" in managers, tag + f"apply manager in managedFields: {managers}")
        # A second manager applying the same field without force conflicts (force=False is sent as "False").
        applied["metadata"]["labels"] = {"applied": "2"}
        st = status_of(lambda: res.server_side_apply(body=json.dumps(applied), name=n, namespace=ns, field_manager="py-other", force_conflicts=False))
        expect(st["code"] == 409 and st["reason"] == "Conflict", tag + f"apply conflict: {st}")
    check(f"{kind} patch json/merge/strategic/apply (dynamic)", patches)

    def watching():
        listed = res.get(namespace=ns, label_selector=sel).to_dict()
        rv = listed["metadata"]["resourceVersion"]
        for i, n in enumerate(objs[:2]):
            o = res.get(name=n, namespace=ns).to_dict()
            o["metadata"]["labels"]["watched"] = str(i)
            res.replace(body=o, namespace=ns)
        events = []
        w = watch.Watch()
        for ev in dyn.watch(res, namespace=ns, label_selector=sel, resource_version=rv, timeout=5, watcher=w):
            events.append((ev["type"], ev["raw_object"]["metadata"]["name"], ev["raw_object"]["metadata"]["resourceVersion"]))
            if len(events) == 2:
                w.stop()
        expect([e[:2] for e in events] == [("MODIFIED", objs[0]), ("MODIFIED", objs[1])], tag + f"events after the list's resourceVersion: {events}")
        # Resume from the first event's resourceVersion: only the second change is replayed.
        resumed = []
        w = watch.Watch()
        for ev in dyn.watch(res, namespace=ns, label_selector=sel, resource_version=events[0][2], timeout=2, watcher=w):
            resumed.append((ev["type"], ev["raw_object"]["metadata"]["name"]))
            w.stop()
        expect(resumed == [("MODIFIED", objs[1])], tag + f"resume from a resourceVersion: {resumed}")
    check(f"{kind} watch with resume (dynamic)", watching)

    def errors():
        st = status_of(lambda: res.get(name=f"{base}-missing", namespace=ns))
        expect(st["code"] == 404 and st["reason"] == "NotFound" and st["details"]["name"] == f"{base}-missing", tag + f"404: {st}")
        st = status_of(lambda: res.create(body=make(objs[0]), namespace=ns))
        expect(st["code"] == 409 and st["reason"] == "AlreadyExists", tag + f"409 AlreadyExists: {st}")
        stale = res.get(name=objs[2], namespace=ns).to_dict()
        res.patch(name=objs[2], namespace=ns, body={"metadata": {"labels": {"bump": "1"}}}, content_type="application/merge-patch+json")
        st = status_of(lambda: res.replace(body=stale, namespace=ns))
        expect(st["code"] == 409 and st["reason"] == "Conflict", tag + f"409 Conflict on a stale resourceVersion: {st}")
        # Event names need only be a path segment (1.23's Event validation); other kinds a DNS name.
        st = status_of(lambda: res.create(body=make("bad/name" if kind == "Event" else "Bad_Name"), namespace=ns))
        causes = st.get("details", {}).get("causes", [])
        expect(st["code"] == 422 and st["reason"] == "Invalid" and any(c.get("field") == "metadata.name" for c in causes), tag + f"422: {st}")
    check(f"{kind} errors 404/409/422 (dynamic)", errors)

    def deleting():
        res.delete(name=objs[0], namespace=ns)
        if collection_delete:
            res.delete(namespace=ns, label_selector=sel)
            left = [n for n in names(res.get(namespace=ns, label_selector=sel).to_dict()["items"])]
            # Objects with finalizers or a grace period may linger; these have none.
            expect(left == [], tag + f"deletecollection left {left}")
        else:
            for n in objs[1:]:
                res.delete(name=n, namespace=ns)
    check(f"{kind} delete and deletecollection (dynamic)", deleting)


def typed_suite(api):
    batch = client.BatchV1Api(api)
    core = client.CoreV1Api(api)
    coord = client.CoordinationV1Api(api)
    sched = client.SchedulingV1Api(api)

    def jobs():
        body = client.V1Job(metadata=client.V1ObjectMeta(name=f"{PREFIX}-typed-job", labels={"typed": "1"}),
                            spec=client.V1JobSpec(template=client.V1PodTemplateSpec(spec=client.V1PodSpec(
                                restart_policy="Never", containers=[client.V1Container(name="c", image="busybox")]))))
        created = batch.create_namespaced_job(NS, body)
        expect(isinstance(created, client.V1Job) and created.spec.backoff_limit == 6, "typed Job created with defaults")
        expect(created.spec.completion_mode == "NonIndexed" and created.spec.suspend is False, "defaulted completionMode/suspend")
        got = batch.read_namespaced_job(created.metadata.name, NS)
        expect(got.metadata.uid == created.metadata.uid, "typed read")
        patched = batch.patch_namespaced_job(created.metadata.name, NS, [{"op": "add", "path": "/metadata/labels/p", "value": "1"}])
        expect(patched.metadata.labels.get("p") == "1", "typed json patch")
        page = batch.list_namespaced_job(NS, limit=1, label_selector="typed=1")
        expect(isinstance(page, client.V1JobList) and len(page.items) == 1, "typed list")
        got = batch.read_namespaced_job_status(created.metadata.name, NS)
        expect(isinstance(got.status, client.V1JobStatus), "a new Job has a status ({} on the wire, as 1.23's JobStatus struct)")
        got.status.active = 0
        batch.replace_namespaced_job_status(created.metadata.name, NS, got)
        batch.delete_namespaced_job(created.metadata.name, NS, propagation_policy="Background")
    check("Job typed BatchV1Api create/read/patch/list/status/delete", jobs)

    def typed_crud(kind, create, read, list_, delete, body, namespaced=True):
        def run():
            args = (NS,) if namespaced else ()
            created = create(*args, body)
            name = created.metadata.name
            got = read(name, *args)
            expect(got.metadata.uid == created.metadata.uid, f"{kind}: typed read")
            lst = list_(*args, label_selector="typed=1")
            expect(name in [i.metadata.name for i in lst.items], f"{kind}: typed list")
            delete(name, *args)
        check(f"{kind} typed create/read/list/delete", run)

    meta = lambda n: client.V1ObjectMeta(name=f"{PREFIX}-typed-{n}", labels={"typed": "1"})  # noqa: E731
    spec = client.V1PodSpec(restart_policy="Never", containers=[client.V1Container(name="c", image="busybox")])
    typed_crud("PodTemplate", core.create_namespaced_pod_template, core.read_namespaced_pod_template, core.list_namespaced_pod_template,
               core.delete_namespaced_pod_template, client.V1PodTemplate(metadata=meta("pt"), template=client.V1PodTemplateSpec(spec=spec)))
    typed_crud("Pod", core.create_namespaced_pod, core.read_namespaced_pod, core.list_namespaced_pod, core.delete_namespaced_pod,
               client.V1Pod(metadata=meta("pod"), spec=spec))
    typed_crud("Node", core.create_node, core.read_node, core.list_node, core.delete_node, client.V1Node(metadata=meta("node")), namespaced=False)
    typed_crud("Namespace", core.create_namespace, core.read_namespace, core.list_namespace, core.delete_namespace,
               client.V1Namespace(metadata=meta("ns")), namespaced=False)
    typed_crud("Event", core.create_namespaced_event, core.read_namespaced_event, core.list_namespaced_event, core.delete_namespaced_event,
               client.CoreV1Event(metadata=meta("ev"), involved_object=client.V1ObjectReference(kind="Pod", name="p", namespace=NS), reason="R"))
    typed_crud("Lease", coord.create_namespaced_lease, coord.read_namespaced_lease, coord.list_namespaced_lease, coord.delete_namespaced_lease,
               client.V1Lease(metadata=meta("lease"), spec=client.V1LeaseSpec(holder_identity="h")))
    typed_crud("PriorityClass", sched.create_priority_class, sched.read_priority_class, sched.list_priority_class, sched.delete_priority_class,
               client.V1PriorityClass(metadata=meta("pc"), value=50, preemption_policy="Never"), namespaced=False)

    def bookmarks():
        # The typed watch sends watch=True and allowWatchBookmarks=True. 1.23's cacher sends a
        # BOOKMARK 2 s before timeoutSeconds (not only every minute), carrying the newest
        # resourceVersion it saw for the resource, and only when that is newer than the one the
        # watch started from: a PodTemplate written in another namespace during the watch moves it.
        other = f"{PREFIX}-bookmarks"
        core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=other)))
        listed = core.list_namespaced_pod_template(NS)
        writer = threading.Timer(1.0, lambda: core.create_namespaced_pod_template(
            other, client.V1PodTemplate(metadata=client.V1ObjectMeta(name="bump"), template=client.V1PodTemplateSpec(spec=spec))))
        writer.start()
        events = []
        start = time.monotonic()
        for ev in watch.Watch().stream(core.list_namespaced_pod_template, NS, allow_watch_bookmarks=True, timeout_seconds=4,
                                       resource_version=listed.metadata.resource_version):
            events.append((ev["type"], time.monotonic() - start))
        writer.join()
        marks = [t for kind, t in events if kind == "BOOKMARK"]
        expect(marks, f"a BOOKMARK before timeoutSeconds=4 ended the watch: {events}")
        expect(all(t < 3.5 for t in marks), f"the bookmark came about 2 s before the deadline: {events}")
        expect(time.monotonic() - start < 30, "the watch ended at its timeout")
    check("PodTemplate typed watch allowWatchBookmarks=True timeoutSeconds=4", bookmarks)


def main():
    try:
        api = configure()
        dyn = dynamic.DynamicClient(api)
    except Exception as e:  # noqa: BLE001
        print(f"cannot start: {e}", file=sys.stderr)
        return 2
    for api_version, kind, namespaced, make, collection_delete in KINDS:
        try:
            dynamic_suite(dyn, api_version, kind, namespaced, make, collection_delete)
        except Exception as e:  # noqa: BLE001 - discovery of the kind failed
            results.append({"name": f"{kind} discovery (dynamic)", "ok": False, "error": f"{type(e).__name__}: {e}"})
    typed_suite(api)
    print(json.dumps({"client": "python3-kubernetes", "results": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
