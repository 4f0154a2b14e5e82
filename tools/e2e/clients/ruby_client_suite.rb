#!/usr/bin/env ruby
# frozen_string_literal: true

# Drives a Skiff apiserver with Debian's ruby-kubeclient (Kubeclient 4.9).
#
# Environment: SKIFF_SERVER (https://127.0.0.1:port), SKIFF_TOKEN (a bearer token of a
# system:masters user), SKIFF_CA_FILE (the serving CA, PEM). For every served kind the client
# discovers its group version (/api/v1, /apis/<group>/v1) and goes through CRUD, list paging
# (limit/continue), every patch type it has (strategic merge, merge, JSON patch, server-side
# apply with force=true/false), watch on the legacy /watch/ paths with resume from a
# resourceVersion, and errors (404, 409, 422 Status bodies).
#
# Prints one JSON document on stdout: {"client": ..., "results": [{"name", "ok", "error"?}]}.
# Exits 0 whatever the results (the calling test asserts them); 2 only when it cannot start.

require 'json'
require 'timeout'
require 'kubeclient'

PREFIX = 'rb'
NS = 'default'
SELECTOR = 'suite=ruby-client'
POD_SPEC = { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] }.freeze

def labels
  { suite: 'ruby-client' }
end

# kind => [group path, method stem (singular), plural stem, namespaced?, body factory]
KINDS = {
  'Job' => ['/apis/batch', 'job', 'jobs', true,
            ->(n) { { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: n, labels: labels }, spec: { template: { spec: POD_SPEC } } } }],
  'CSIDriver' => ['/apis/storage.example.io', 'csidriver', 'csidrivers', false,
                  ->(n) { { apiVersion: 'storage.example.io/v1', kind: 'CSIDriver', metadata: { name: n, labels: labels }, spec: { attachRequired: false } } }],
  'CSINode' => ['/apis/storage.example.io', 'csinode', 'csinodes', false,
                ->(n) { { apiVersion: 'storage.example.io/v1', kind: 'CSINode', metadata: { name: n, labels: labels }, spec: { drivers: [{ name: 'csi.example.io', nodeID: n }] } } }],
  'PodTemplate' => ['/api', 'pod_template', 'pod_templates', true,
                    ->(n) { { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: n, labels: labels }, template: { spec: POD_SPEC } } }],
  'Pod' => ['/api', 'pod', 'pods', true, ->(n) { { apiVersion: 'v1', kind: 'Pod', metadata: { name: n, labels: labels }, spec: POD_SPEC } }],
  'Node' => ['/api', 'node', 'nodes', false, ->(n) { { apiVersion: 'v1', kind: 'Node', metadata: { name: n, labels: labels } } }],
  'Namespace' => ['/api', 'namespace', 'namespaces', false, ->(n) { { apiVersion: 'v1', kind: 'Namespace', metadata: { name: n, labels: labels } } }],
  'Event' => ['/api', 'event', 'events', true,
              lambda { |n|
                { apiVersion: 'v1', kind: 'Event', metadata: { name: n, labels: labels }, reason: 'Test', message: 'm', type: 'Normal',
                  involvedObject: { kind: 'Pod', namespace: NS, name: 'p' } }
              }],
  'Lease' => ['/apis/coordination.k8s.io', 'lease', 'leases', true,
              ->(n) { { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: n, labels: labels }, spec: { holderIdentity: 'h' } } }],
  'PriorityClass' => ['/apis/scheduling.k8s.io', 'priority_class', 'priority_classes', false,
                      ->(n) { { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: n, labels: labels }, value: 100 } }]
}.freeze

$results = []

def check(name)
  yield
  $results << { name: name, ok: true }
rescue StandardError, Timeout::Error => e
  $results << { name: name, ok: false, error: "#{e.class}: #{e.message}"[0, 1500], trace: e.backtrace.first(5).join("\n") }
end

def expect(cond, what)
  raise what unless cond
end

# The Status body of the Kubeclient::HttpError the block raises.
def status_of
  yield
  raise 'no error'
rescue Kubeclient::HttpError => e
  body = JSON.parse(e.response.body)
  expect(body['kind'] == 'Status' && body['code'] == e.error_code, "not a Status body: #{e.response.body}")
  body
end

def client_for(path)
  Kubeclient::Client.new("#{ENV.fetch('SKIFF_SERVER')}#{path}", 'v1',
                         ssl_options: { ca_file: ENV.fetch('SKIFF_CA_FILE'), verify_ssl: OpenSSL::SSL::VERIFY_PEER },
                         auth_options: { bearer_token: ENV.fetch('SKIFF_TOKEN') },
                         as: :parsed_symbolized)
end

def names(items)
  items.map { |i| i[:metadata][:name] }.sort
end

# Reads `count` notices from a watch (or fails after `seconds`), then stops it.
def read_notices(watcher, count, seconds)
  got = []
  Timeout.timeout(seconds) do
    watcher.each do |notice|
      got << notice
      break if got.size == count
    end
  end
  got
ensure
  watcher.finish
end

def kind_suite(kind, (path, one, many, namespaced, make))
  c = client_for(path)
  c.discover
  ns = namespaced ? NS : nil
  base = "#{PREFIX}-#{kind.downcase}"
  objs = %w[a b c].map { |s| "#{base}-#{s}" }
  tag = "#{kind}: "

  check("#{kind} create/get/update") do
    objs.each do |n|
      created = c.public_send("create_#{one}", make.call(n).merge(metadata: make.call(n)[:metadata].merge(namespace: ns).compact))
      expect(created[:metadata][:name] == n && created[:metadata][:uid], "#{tag}create answers the object")
    end
    got = c.public_send("get_#{one}", objs[0], ns)
    expect(got[:kind] == kind, "#{tag}get kind #{got[:kind]}")
    got[:metadata][:labels][:updated] = 'yes'
    updated = c.public_send("update_#{one}", got)
    expect(updated[:metadata][:labels][:updated] == 'yes', "#{tag}update keeps the change")
  end

  check("#{kind} list paging limit/continue") do
    first = c.public_send("get_#{many}", namespace: ns, label_selector: SELECTOR, limit: 2)
    expect(first[:items].size == 2, "#{tag}limit=2 gives 2 items, got #{first[:items].size}")
    token = first[:metadata][:continue]
    expect(token, "#{tag}a continue token")
    rest = c.public_send("get_#{many}", namespace: ns, label_selector: SELECTOR, limit: 2, continue: token)
    expect(names(first[:items] + rest[:items]) == objs, "#{tag}pages cover the objects: #{names(first[:items] + rest[:items])}")
  end

  check("#{kind} patch strategic/merge/json/apply") do
    n = objs[1]
    out = c.public_send("patch_#{one}", n, { metadata: { labels: { strategic: '1' } } }, ns)
    expect(out[:metadata][:labels][:strategic] == '1', "#{tag}strategic merge patch")
    out = c.public_send("merge_patch_#{one}", n, { metadata: { annotations: { merge: '1' } } }, ns)
    expect(out[:metadata][:annotations] == { merge: '1' }, "#{tag}merge patch")
    out = c.public_send("json_patch_#{one}", n, [{ op: 'add', path: '/metadata/annotations/json', value: '1' }], ns)
    expect(out[:metadata][:annotations] == { merge: '1', json: '1' }, "#{tag}json patch #{out[:metadata][:annotations]}")
    applied = make.call(n)
    applied[:metadata] = applied[:metadata].merge(namespace: ns, labels: { applied: '1' }).compact
    out = c.public_send("apply_#{one}", applied, field_manager: 'rb-apply', force: true)
    expect(out[:metadata][:labels][:applied] == '1', "#{tag}server-side apply")
    applied[:metadata][:labels] = { applied: '2' }
    st = status_of { c.public_send("apply_#{one}", applied, field_manager: 'rb-other', force: false) }
    expect(st['code'] == 409 && st['reason'] == 'Conflict', "#{tag}apply conflict with force=false: #{st}")
  end

  check("#{kind} watch with resume (/watch/ paths)") do
    rv = c.public_send("get_#{many}", namespace: ns, label_selector: SELECTOR)[:metadata][:resourceVersion]
    objs[0, 2].each_with_index { |n, i| c.public_send("merge_patch_#{one}", n, { metadata: { labels: { watched: i.to_s } } }, ns) }
    events = read_notices(c.public_send("watch_#{many}", namespace: ns, label_selector: SELECTOR, resource_version: rv), 2, 10)
    got = events.map { |e| [e[:type], e[:object][:metadata][:name]] }
    expect(got == [['MODIFIED', objs[0]], ['MODIFIED', objs[1]]], "#{tag}events after the list's resourceVersion: #{got}")
    resumed = read_notices(c.public_send("watch_#{many}", namespace: ns, label_selector: SELECTOR,
                                                          resource_version: events[0][:object][:metadata][:resourceVersion]), 1, 10)
    got = resumed.map { |e| [e[:type], e[:object][:metadata][:name]] }
    expect(got == [['MODIFIED', objs[1]]], "#{tag}resume from a resourceVersion: #{got}")
  end

  check("#{kind} errors 404/409/422") do
    st = status_of { c.public_send("get_#{one}", "#{base}-missing", ns) }
    expect(st['code'] == 404 && st['reason'] == 'NotFound' && st['details']['name'] == "#{base}-missing", "#{tag}404: #{st}")
    dup = make.call(objs[0])
    dup[:metadata] = dup[:metadata].merge(namespace: ns).compact
    st = status_of { c.public_send("create_#{one}", dup) }
    expect(st['code'] == 409 && st['reason'] == 'AlreadyExists', "#{tag}409 AlreadyExists: #{st}")
    stale = c.public_send("get_#{one}", objs[2], ns)
    c.public_send("merge_patch_#{one}", objs[2], { metadata: { labels: { bump: '1' } } }, ns)
    st = status_of { c.public_send("update_#{one}", stale) }
    expect(st['code'] == 409 && st['reason'] == 'Conflict', "#{tag}409 Conflict on a stale resourceVersion: #{st}")
    bad = make.call(kind == 'Event' ? 'bad/name' : 'Bad_Name')
    bad[:metadata] = bad[:metadata].merge(namespace: ns).compact
    st = status_of { c.public_send("create_#{one}", bad) }
    causes = (st['details'] || {})['causes'] || []
    expect(st['code'] == 422 && st['reason'] == 'Invalid' && causes.any? { |x| x['field'] == 'metadata.name' }, "#{tag}422: #{st}")
  end

  check("#{kind} delete") do
    objs.each { |n| c.public_send("delete_#{one}", n, ns, delete_options: { propagationPolicy: 'Background' }) }
    st = status_of { c.public_send("get_#{one}", objs[0], ns) } unless kind == 'Namespace'
    expect(kind == 'Namespace' || st['code'] == 404, "#{tag}deleted: #{st}")
  end
end

begin
  ENV.fetch('SKIFF_SERVER')
rescue KeyError => e
  warn "cannot start: #{e.message}"
  exit 2
end
KINDS.each do |kind, spec|
  kind_suite(kind, spec)
rescue StandardError => e
  $results << { name: "#{kind} discovery", ok: false, error: "#{e.class}: #{e.message}" }
end
puts JSON.generate(client: 'ruby-kubeclient', results: $results)
