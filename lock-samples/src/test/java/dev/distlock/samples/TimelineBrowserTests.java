package dev.distlock.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.distlock.core.test.RedisServers;
import dev.distlock.spring.LockTemplate;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Loads the sample's page in a headless Chromium, runs the hand-off demo and checks the picture:
 * the bars of the exclusive {@code baton} lock appear, one per hold, and never overlap; the overrun
 * lease is drawn as lost; hand-offs fill the histogram. A long lock name is labelled in full, wrapped
 * when the page is narrow, and the histograms' x labels never overlap, wide or narrow. The permits of
 * the partner demo's semaphore are stacked in lanes, never more than its 3 at once. Keeps a
 * screenshot in {@code target/screenshots/timeline.png} (the one in docs/images is taken from it). Skipped where Chromium or its driver is not installed
 * (Debian: {@code apt-get install chromium chromium-driver}); it never downloads either.
 */
@SpringBootTest(
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {"samples.handoff-time=400ms", "samples.partner-time=300ms", "samples.report-interval=1h"})
class TimelineBrowserTests {

    private static final Path CHROMIUM = Paths.get(System.getProperty("samples.chromium", "/usr/bin/chromium"));

    private static final Path CHROMEDRIVER =
            Paths.get(System.getProperty("samples.chromedriver", "/usr/bin/chromedriver"));

    private static final int WORKERS = 5;

    private static final int ROUNDS = 3;

    private static final String PARTNER = "partner:partner-api";

    private static final String LONG_LOCK = "warehouse-eu-west-1:reservations:order-2026-11-000042:line-7";

    @Autowired
    LockTemplate locks;

    @LocalServerPort
    int port;

    @TempDir
    Path profile;

    private ChromeDriver browser;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("distlock.redis.url", () -> RedisServers.shared().uri());
    }

    @BeforeEach
    void startBrowser() {
        assumeTrue(
                Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                () -> "Chromium or chromedriver is not installed (" + CHROMIUM + ", " + CHROMEDRIVER
                        + "): skipping the browser test; on Debian: apt-get install chromium chromium-driver");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        // Root in a container has no sandbox; and nothing may reach the network but the app on loopback.
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1280,1100",
                "--user-data-dir=" + profile.toAbsolutePath());
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        browser = new ChromeDriver(service, options);
    }

    @AfterEach
    void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void whenTheHandoffDemoRunsThenTheTimelineDrawsOneBarPerHoldAndNoneOverlap() throws IOException {
        browser.get("http://127.0.0.1:" + port + "/");
        assertThat(runDemo("/api/demo/handoff")).contains("holds of 'baton'");
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    assertThat(bars("baton"))
                            .filteredOn(bar -> bar.end() != null)
                            .hasSizeGreaterThanOrEqualTo(WORKERS * ROUNDS);
                    assertThat(bars("baton-overrun"))
                            .anySatisfy(bar -> assertThat(bar.lost()).isTrue());
                });

        List<Bar> baton = new ArrayList<>(bars("baton"));
        baton.sort(Comparator.comparingDouble(Bar::start));
        assertThat(baton).allSatisfy(bar -> {
            assertThat(bar.end()).as("every hold of the demo ended: %s", bar).isNotNull();
            assertThat(bar.end()).as("a bar ends after it starts: %s", bar).isGreaterThanOrEqualTo(bar.start());
            assertThat(bar.lost()).as("no baton lease is lost: %s", bar).isFalse();
        });
        for (int i = 1; i < baton.size(); i++) {
            Bar previous = baton.get(i - 1);
            Bar next = baton.get(i);
            assertThat(next.start())
                    .as("%s starts after %s ended", next, previous)
                    .isGreaterThanOrEqualTo(previous.end());
        }
        assertThat(baton)
                .extracting(Bar::owner)
                .anyMatch(owner -> owner.endsWith("/worker-1"))
                .anyMatch(owner -> owner.endsWith("/worker-" + WORKERS));
        assertThatEveryBarIsLabelledWithItsWholeOwner("baton");
        assertThat(browser.findElements(By.cssSelector("#timeline rect.wait.gave-up[data-lock='baton']")))
                .as("the impatient worker gave up")
                .isNotEmpty();
        assertThat(((JavascriptExecutor) browser).executeScript("return document.getElementById('hist-lock').value"))
                .as("the histograms show the busiest lock")
                .isEqualTo("baton");
        assertThat(histogramCount("hist-acquire")).isGreaterThanOrEqualTo(WORKERS * ROUNDS);
        assertThat(histogramCount("hist-handoff")).isGreaterThanOrEqualTo(WORKERS * ROUNDS / 2);

        // The picture for the README: the last 10 s, where bars are wide enough to carry their owner.
        ((JavascriptExecutor) browser)
                .executeScript("const s = document.getElementById('timeline-window');"
                        + " s.value = '10'; s.dispatchEvent(new Event('change'))");
        await().atMost(Duration.ofSeconds(5)).until(() -> "10000"
                .equals(browser.findElement(By.id("timeline")).getDomAttribute("data-window")));
        WebElement picture = browser.findElement(By.id("contention"));
        Path screenshot = Paths.get("target", "screenshots", "timeline.png");
        Files.createDirectories(screenshot.getParent());
        Files.write(screenshot, picture.getScreenshotAs(OutputType.BYTES));
        assertThat(Files.size(screenshot)).isGreaterThan(10_000);

        ((JavascriptExecutor) browser)
                .executeScript("const s = document.getElementById('timeline-window');"
                        + " s.value = '60'; s.dispatchEvent(new Event('change'))");
        assertThat(locks.execute(LONG_LOCK, () -> "held")).isEqualTo("held");
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertThatTheLongLockIsLabelledInFull(1));
        assertThatNoHistogramXLabelsOverlap();

        browser.manage().window().setSize(new Dimension(600, 1100));
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertThatTheLongLockIsLabelledInFull(2));
        assertThatNoHistogramXLabelsOverlap();
    }

    @Test
    void whenThePartnerDemoRunsThenTheSemaphoreRowStacksItsPermitsAndNeverShowsMoreThanThePermits() throws IOException {
        browser.get("http://127.0.0.1:" + port + "/");
        assertThat(runDemo("/api/demo/partner")).contains("10 callers, 3 permits", "0 refused");
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertThat(bars(PARTNER))
                        .filteredOn(bar -> bar.end() != null)
                        .hasSize(10));

        List<Bar> permits = bars(PARTNER);
        for (Bar permit : permits) {
            long atOnce = permits.stream()
                    .filter(other -> other.start() <= permit.start() && permit.start() < other.end())
                    .count();
            assertThat(atOnce).as("permits drawn held when %s began", permit).isBetween(1L, 3L);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> row = (Map<String, Object>) ((JavascriptExecutor) browser)
                .executeScript(
                        "const g = [...document.querySelectorAll('#timeline g.lock')].find(g => g.dataset.lock === arguments[0]);"
                                + " return g && {type: g.dataset.lockType, kind: g.querySelector('text.kind')?.textContent,"
                                + " name: g.querySelector('text.name').textContent};",
                        PARTNER);
        assertThat(row).as("the row of %s", PARTNER).isNotNull();
        assertThat(row.get("type")).isEqualTo("semaphore");
        assertThat(row.get("name")).isEqualTo(PARTNER);
        assertThat((String) row.get("kind")).matches("semaphore, up to [123] held at once");
        assertThatEveryBarIsLabelledWithItsWholeOwner(PARTNER);

        ((JavascriptExecutor) browser)
                .executeScript("const s = document.getElementById('timeline-window');"
                        + " s.value = '10'; s.dispatchEvent(new Event('change'))");
        await().atMost(Duration.ofSeconds(5)).until(() -> "10000"
                .equals(browser.findElement(By.id("timeline")).getDomAttribute("data-window")));
        Path screenshot = Paths.get("target", "screenshots", "timeline-semaphore.png");
        Files.createDirectories(screenshot.getParent());
        Files.write(screenshot, browser.findElement(By.id("contention")).getScreenshotAs(OutputType.BYTES));
    }

    // Presses the demo's button and returns the page's summary once the POST answered. A demo that
    // does not answer fails with what the page shows and where the app's threads are, not a blank.
    private String runDemo(String path) {
        browser.findElement(By.cssSelector("button[data-demo='" + path + "']")).click();
        try {
            await().atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> !pageText("result").startsWith("Running"));
        } catch (ConditionTimeoutException ex) {
            throw new AssertionError(
                    "POST " + path + " did not answer within 90 s; the page shows: " + pageText("result")
                            + "\nthe app's threads:\n" + appThreads(),
                    ex);
        }
        String summary = pageText("summary");
        assertThat(summary)
                .as("summary of %s; the page shows: %s", path, pageText("result"))
                .isNotBlank();
        return summary;
    }

    private String pageText(String id) {
        return String.valueOf(((JavascriptExecutor) browser)
                .executeScript("return document.getElementById(arguments[0]).textContent", id));
    }

    private static String appThreads() {
        StringBuilder dump = new StringBuilder();
        Thread.getAllStackTraces().forEach((thread, stack) -> {
            if (thread.getName().matches("worker-\\d+|impatient|overrunner|caller-\\d+|http-nio.*exec.*")) {
                dump.append(thread.getName())
                        .append(' ')
                        .append(thread.getState())
                        .append('\n');
                for (StackTraceElement frame : stack) {
                    dump.append("    at ").append(frame).append('\n');
                }
            }
        });
        return dump.toString();
    }

    // One label per bar, each the bar's whole owner thread (inside the bar or under it), never cut.
    @SuppressWarnings("unchecked")
    private void assertThatEveryBarIsLabelledWithItsWholeOwner(String lock) {
        Map<String, List<String>> drawn = (Map<String, List<String>>) ((JavascriptExecutor) browser)
                .executeScript(
                        "const g = [...document.querySelectorAll('#timeline g.lock')].find(g => g.dataset.lock === arguments[0]);"
                                + " return {labels: [...g.querySelectorAll('text.bar-label')].map(t => t.textContent).sort(),"
                                + " owners: [...g.querySelectorAll('rect.hold')]"
                                + ".map(r => r.dataset.owner.slice(r.dataset.owner.lastIndexOf('/') + 1)).sort()};",
                        lock);
        assertThat(drawn.get("labels"))
                .as("owner labels of %s", lock)
                .isNotEmpty()
                .noneMatch(t -> t.contains("…"));
        assertThat(drawn.get("labels")).as("owner labels of %s", lock).isEqualTo(drawn.get("owners"));
    }

    // The label reads the whole name, in at least minLines lines, left of where the bars begin.
    @SuppressWarnings("unchecked")
    private void assertThatTheLongLockIsLabelledInFull(int minLines) {
        Map<String, Object> label = (Map<String, Object>) ((JavascriptExecutor) browser)
                .executeScript(
                        "const svg = document.getElementById('timeline');"
                                + " const g = [...svg.querySelectorAll('g.lock')].find(g => g.dataset.lock === arguments[0]);"
                                + " const t = g && g.querySelector('text.name');"
                                + " if (!t) return null;"
                                + " const box = t.getBBox();"
                                + " return {text: t.textContent, lines: t.querySelectorAll('tspan').length,"
                                + " left: box.x, right: box.x + box.width, plotLeft: Number(svg.dataset.plotLeft)};",
                        LONG_LOCK);
        assertThat(label).as("the row of lock %s", LONG_LOCK).isNotNull();
        assertThat(label.get("text")).as("the label of %s", LONG_LOCK).isEqualTo(LONG_LOCK);
        assertThat(((Number) label.get("lines")).intValue()).isGreaterThanOrEqualTo(minLines);
        assertThat(((Number) label.get("left")).doubleValue()).isGreaterThanOrEqualTo(0);
        assertThat(((Number) label.get("right")).doubleValue())
                .as("the label ends before the bars begin")
                .isLessThanOrEqualTo(((Number) label.get("plotLeft")).doubleValue());
    }

    // Every label under a histogram's x axis, as drawn: no two boxes share a pixel.
    @SuppressWarnings("unchecked")
    private void assertThatNoHistogramXLabelsOverlap() {
        for (String id : List.of("hist-acquire", "hist-handoff")) {
            List<Map<String, Object>> boxes = (List<Map<String, Object>>) ((JavascriptExecutor) browser)
                    .executeScript(
                            "return [...document.querySelectorAll('#' + arguments[0] + ' text.axis:not(.summary)')]"
                                    + ".map(t => { const b = t.getBBox();"
                                    + " return {text: t.textContent, x: b.x, y: b.y, w: b.width, h: b.height}; })",
                            id);
            assertThat(boxes).as("x labels of %s", id).hasSizeGreaterThanOrEqualTo(5);
            for (int i = 0; i < boxes.size(); i++) {
                for (int j = i + 1; j < boxes.size(); j++) {
                    assertThat(intersect(boxes.get(i), boxes.get(j)))
                            .as(
                                    "x labels '%s' and '%s' of %s overlap",
                                    boxes.get(i).get("text"), boxes.get(j).get("text"), id)
                            .isFalse();
                }
            }
        }
    }

    private static boolean intersect(Map<String, Object> a, Map<String, Object> b) {
        return number(a, "x") < number(b, "x") + number(b, "w")
                && number(b, "x") < number(a, "x") + number(a, "w")
                && number(a, "y") < number(b, "y") + number(b, "h")
                && number(b, "y") < number(a, "y") + number(a, "h");
    }

    private static double number(Map<String, Object> box, String key) {
        return ((Number) box.get(key)).doubleValue();
    }

    @SuppressWarnings("unchecked")
    private List<Bar> bars(String lock) {
        List<Map<String, Object>> rows = (List<Map<String, Object>>) ((JavascriptExecutor) browser)
                .executeScript(
                        "return [...document.querySelectorAll('#timeline rect.hold')]"
                                + ".filter(r => r.dataset.lock === arguments[0])"
                                + ".map(r => ({start: r.dataset.start, end: r.dataset.end, owner: r.dataset.owner, lost: r.dataset.lost}))",
                        lock);
        return rows.stream()
                .map(row -> new Bar(
                        Double.parseDouble((String) row.get("start")),
                        ((String) row.get("end")).isEmpty() ? null : Double.valueOf((String) row.get("end")),
                        (String) row.get("owner"),
                        "true".equals(row.get("lost"))))
                .toList();
    }

    // In one script: the page redraws every 250 ms, which would leave element references stale.
    private long histogramCount(String id) {
        return ((Number) ((JavascriptExecutor) browser)
                        .executeScript(
                                "return [...document.querySelectorAll('#' + arguments[0] + ' rect.hist')]"
                                        + ".reduce((sum, r) => sum + Number(r.dataset.count), 0)",
                                id))
                .longValue();
    }

    /** One bar of the timeline: a hold from start to end (epoch ms; end {@code null} while held). */
    record Bar(double start, Double end, String owner, boolean lost) {}
}
