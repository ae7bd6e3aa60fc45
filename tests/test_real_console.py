"""The web console in a real headless browser (Playwright driving Debian's Chromium) against a real 3-broker
cluster: every page shows the live cluster, a killed broker's partitions turn under-replicated without a reload,
and a topic created, a config changed, a preferred election run and a generated reassignment plan executed from
the page land in ZooKeeper.

With KAFKA_ZK_CONSOLE_SCREENSHOTS=<dir> the test also saves the pages as PNGs there (docs/console-*.png)."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from kafka_zk.zk.client import KafkaZkClient
from tests.cluster_support import start_cluster, wait_for
from tests.ports import free_port

sync_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TOPIC = "console-events"
GROUP = "console-billing"
PER_PARTITION = 10
COMMITTED = 4
SCREENSHOTS = os.environ.get("KAFKA_ZK_CONSOLE_SCREENSHOTS")

pytestmark = pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason="Debian's chromium is not installed")


class Console:
    def __init__(self, cluster, url, process, zk):
        self.cluster = cluster
        self.url = url
        self.process = process
        self.zk = zk


def _serving(url):
    try:
        with urllib.request.urlopen(url + "api/state", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


@pytest.fixture(scope="module")
def console(tmp_path_factory, zookeeper_server):
    folder = tmp_path_factory.mktemp("console")
    cluster = start_cluster(
        folder / "cluster",
        zookeeper_server,
        3,
        {"zookeeper.session.timeout.ms": "6000", "auto.leader.rebalance.enable": "false"},
        metrics=True,
    )
    port = free_port()
    log = open(folder / "console.log", "wb")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kafka_zk.console.main",
            "--zookeeper",
            cluster.zk_connect,
            "--bootstrap-server",
            cluster.bootstrap_servers,
            "--port",
            str(port),
            "--metrics",
            ",".join(b.metrics_url for b in cluster.brokers),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    zk = KafkaZkClient(cluster.zk_connect, session_timeout_ms=10000)
    zk.start(timeout=10)
    url = "http://127.0.0.1:%d/" % port
    try:
        wait_for(lambda: _serving(url) or process.poll() is not None, 30, message="the console to serve")
        assert process.poll() is None, (folder / "console.log").read_text()
        yield Console(cluster, url, process, zk)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
        log.close()
        zk.close()
        cluster.stop()


@pytest.fixture(scope="module")
def page(console):
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            view = browser.new_page(viewport={"width": 1280, "height": 860})
            view.set_default_timeout(15000)
            view.goto(console.url + "#brokers")
            yield view
        finally:
            browser.close()


def _screenshot(page, name):
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENSHOTS) / ("console-%s.png" % name)), full_page=True)


def _show(page, route):
    page.evaluate("location.hash = %r" % route)


class Traffic:
    """For the screenshots only: a trickle of records into TOPIC so that the charts have something to draw."""

    def __init__(self, bootstrap):
        from confluent_kafka import Producer

        self.producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        index = 0
        while not self.stopping.wait(0.02):
            self.producer.produce(TOPIC, b"x" * (100 + index % 400))
            self.producer.poll(0)
            index += 1

    def stop(self):
        self.stopping.set()
        self.thread.join(5)
        self.producer.flush(5)
        self.producer = None  # librdkafka's handle goes now, before the cluster stops


TRAFFIC = []


def _lagging_group(bootstrap):
    """TOPIC with 3 partitions on 3 brokers, PER_PARTITION records in each, and GROUP committed at COMMITTED."""
    from confluent_kafka import Consumer, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(TOPIC, 3, 3)])[TOPIC].result(30)
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for partition in range(3):
        for index in range(PER_PARTITION):
            producer.produce(TOPIC, b"record-%d" % index, partition=partition)
    assert producer.flush(30) == 0
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP, "enable.auto.commit": False})
    try:
        consumer.commit(offsets=[TopicPartition(TOPIC, p, COMMITTED) for p in range(3)], asynchronous=False)
    finally:
        consumer.close()


def test_pages_show_the_live_brokers_topics_isr_groups_and_lag(console, page):
    _lagging_group(console.cluster.bootstrap_servers)
    controller = console.zk.get_controller_id()
    epoch = console.zk.get_controller_epoch()[0]

    for broker in console.cluster.brokers:
        row = page.locator('#brokers tr[data-broker="%d"]' % broker.broker_id)
        sync_api.expect(row).to_contain_text("alive")
        sync_api.expect(row).to_contain_text("PLAINTEXT://%s" % broker.bootstrap)
    sync_api.expect(page.locator('#brokers tr[data-broker="%d"]' % controller)).to_contain_text(
        "controller, epoch %d" % epoch
    )
    _screenshot(page, "brokers")

    _show(page, "topics")
    sync_api.expect(page.locator('#topics tr[data-topic="%s"]' % TOPIC)).to_be_visible()
    for partition in range(3):
        state = console.zk.get_partition_states([(TOPIC, partition)])[(TOPIC, partition)]
        row = page.locator('#partitions tr[data-partition="%s-%d"]' % (TOPIC, partition))
        sync_api.expect(row).to_contain_text(",".join(map(str, state.isr)))
        assert "under-replicated" not in (row.get_attribute("class") or "")

    _show(page, "groups")
    lag_rows = page.locator('table.lag[data-group="%s"] tr[data-partition]' % GROUP)
    sync_api.expect(lag_rows).to_have_count(3)
    for partition in range(3):
        row = page.locator('table.lag[data-group="%s"] tr[data-partition="%s-%d"]' % (GROUP, TOPIC, partition))
        sync_api.expect(row.locator("td.lag-value")).to_have_text(str(PER_PARTITION - COMMITTED))
    sync_api.expect(page.locator('#groups tr[data-group="%s"]' % GROUP)).to_contain_text(
        str(3 * (PER_PARTITION - COMMITTED))
    )
    _screenshot(page, "groups")

    _show(page, "topic/" + TOPIC)
    sync_api.expect(page.locator("#configs tr").first).to_be_attached()
    _show(page, "reassignments")
    sync_api.expect(page.locator("#no-reassignments")).to_be_visible()
    _show(page, "charts")
    sync_api.expect(page.locator('[data-chart="consumer_lag"] polyline')).to_have_count(1)
    if SCREENSHOTS:
        TRAFFIC.append(Traffic(console.cluster.bootstrap_servers))


def test_create_topic_from_the_page_lands_in_zookeeper(console, page):
    _show(page, "topics")
    form = page.locator("form#create-topic")
    form.locator('input[name="topic"]').fill("from-the-page")
    form.locator('input[name="partitions"]').fill("4")
    form.locator('input[name="replication_factor"]').fill("2")
    form.locator('input[name="configs"]').fill("retention.ms=3600000")
    form.locator("button").click()
    sync_api.expect(page.locator("#flash.ok")).to_contain_text("Created topic from-the-page.")
    assignment = wait_for(lambda: console.zk.get_topic_assignment("from-the-page"), 10, message="the topic znode")
    assert sorted(assignment) == [0, 1, 2, 3] and all(len(replicas) == 2 for replicas in assignment.values())
    assert console.zk.get_entity_config("topics", "from-the-page") == {"retention.ms": "3600000"}
    sync_api.expect(page.locator('#topics tr[data-topic="from-the-page"]')).to_be_visible()


def test_a_config_change_from_the_page_lands_in_zookeeper(console, page):
    _show(page, "topic/from-the-page")
    form = page.locator("form#alter-topic-config")
    form.locator('input[name="set"]').fill("retention.ms=7200000,cleanup.policy=[compact,delete]")
    form.locator("button").click()
    sync_api.expect(page.locator("#flash.ok")).to_contain_text("Completed updating config for topic from-the-page.")
    assert console.zk.get_entity_config("topics", "from-the-page") == {
        "retention.ms": "7200000",
        "cleanup.policy": "compact,delete",
    }
    sync_api.expect(page.locator("#overrides")).to_contain_text("compact,delete")


def test_a_killed_broker_shows_its_partitions_under_replicated_within_10s_without_a_reload(console, page):
    _show(page, "topics")
    page.evaluate("window.loadedOnce = true")
    controller = console.zk.get_controller_id()
    victim = next(b for b in console.cluster.brokers if b.broker_id != controller)
    killed_at = time.monotonic()
    victim.kill()
    rows = page.locator('#partitions tr.under-replicated[data-partition^="%s-"]' % TOPIC)
    sync_api.expect(rows).to_have_count(3, timeout=10000)
    elapsed = time.monotonic() - killed_at
    assert elapsed < 10, elapsed
    assert page.evaluate("window.loadedOnce") is True  # the same document: no reload
    sync_api.expect(page.locator("#partitions tr.under-replicated").first).to_contain_text(TOPIC)
    _screenshot(page, "topics")
    _show(page, "brokers")
    sync_api.expect(page.locator('#brokers tr[data-broker="%d"]' % victim.broker_id)).to_contain_text("down")

    victim.start()
    wait_for(
        lambda: all(
            victim.broker_id in s.isr for s in console.zk.get_partition_states([(TOPIC, p) for p in range(3)]).values()
        ),
        30,
        message="the restarted broker back in every ISR",
    )


def test_preferred_election_from_the_page_moves_leaders_back_in_zookeeper(console, page):
    states = console.zk.get_partition_states([(TOPIC, p) for p in range(3)])
    assignment = console.zk.get_topic_assignment(TOPIC)
    assert any(states[(TOPIC, p)].leader != assignment[p][0] for p in range(3)), "a leader should have moved"
    _show(page, "topic/" + TOPIC)
    sync_api.expect(page.locator("#partitions tr.under-replicated")).to_have_count(0)  # the broker is back
    sync_api.expect(page.locator("#configs")).to_be_attached()
    _screenshot(page, "topic")
    page.locator("form#preferred-election button").click()
    sync_api.expect(page.locator("#flash.ok")).to_contain_text("Successfully completed preferred replica election")
    states = console.zk.get_partition_states([(TOPIC, p) for p in range(3)])
    assert {p: states[(TOPIC, p)].leader for p in range(3)} == {p: assignment[p][0] for p in range(3)}
    sync_api.expect(
        page.locator('#partitions tr[data-partition^="%s-"] .badge:text("not preferred leader")' % TOPIC)
    ).to_have_count(0)
    if SCREENSHOTS:
        _show(page, "charts")
        page.wait_for_timeout(4000)
        _screenshot(page, "charts")
        for traffic in TRAFFIC:
            traffic.stop()


def test_a_generated_reassignment_plan_executed_from_the_page_lands_in_zookeeper(console, page):
    _show(page, "topic/from-the-page")
    generate = page.locator("form#generate-reassignment")
    sync_api.expect(generate.locator('input[name="topics"]')).to_have_value("from-the-page")
    generate.locator('input[name="brokers"]').fill("1,2")
    generate.locator("button").click()
    sync_api.expect(page.locator("#flash.ok")).to_contain_text("Proposed plan")
    plan_box = page.locator("form#execute-reassignment textarea")
    sync_api.expect(plan_box).not_to_have_value("")
    plan = json.loads(plan_box.input_value())
    target = {p["partition"]: p["replicas"] for p in plan["partitions"]}
    assert sorted(target) == [0, 1, 2, 3] and all(sorted(r) == [1, 2] for r in target.values())
    page.locator("form#execute-reassignment button").click()
    sync_api.expect(page.locator("#flash.ok")).to_contain_text("Successfully started partition reassignments")
    wait_for(lambda: console.zk.get_topic_assignment("from-the-page") == target, 20, message="the new assignment")
    _show(page, "reassignments")
    sync_api.expect(page.locator("#no-reassignments")).to_be_visible(timeout=20000)
