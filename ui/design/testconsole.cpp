#include "ui/design/testconsole.h"

#include "limiter/algorithms/clock.h"
#include "ui/common/icons.h"
#include "ui/document/policydocument.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTextBlock>
#include <QTextDocument>
#include <QVBoxLayout>

namespace qs {

namespace {
QString seconds(limiter::Micros us)
{
    return QStringLiteral("%1 s").arg(double(us) / 1e6, 0, 'f', 3);
}
// Readable on light and dark palettes alike.
const QString kAdmittedColor = QStringLiteral("#2e9d4f");
const QString kDeniedColor = QStringLiteral("#d64541");
} // namespace

TestConsole::TestConsole(PolicyDocument *doc, QWidget *parent) : QWidget(parent), m_doc(doc)
{
    build();
    connect(doc, &PolicyDocument::reset, this, &TestConsole::restart);
    connect(doc, &PolicyDocument::routesChanged, this, &TestConsole::restart);
    connect(doc, &PolicyDocument::routeChanged, this, &TestConsole::restart);
    connect(doc, &PolicyDocument::policyFieldsChanged, this, &TestConsole::restart);
    connect(doc, &PolicyDocument::planMapRead, this, &TestConsole::restart); // keys → plans
    restart();
}

void TestConsole::build()
{
    // Three compact rows of controls over the output, so that at 1280x800 the request, the
    // clock, Reset and the log are all visible in the Design page's lower pane.
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *controls = new QGridLayout;
    controls->setContentsMargins(0, 0, 0, 0);
    controls->addLayout(buildRequestRow(), 0, 0, 1, 2);
    controls->addLayout(buildHeadersRow(), 1, 0, 1, 2);
    controls->addLayout(buildClockRow(), 2, 0, 1, 2);
    layout->addLayout(controls);
    layout->addWidget(buildOutput(), 1);
    clearDecision();
    connectControls();
}

// Method, target, client address, cost and Send.
QHBoxLayout *TestConsole::buildRequestRow()
{
    m_method = new QComboBox;
    m_method->setEditable(true);
    m_method->addItems({QStringLiteral("GET"), QStringLiteral("POST"), QStringLiteral("PUT"),
        QStringLiteral("PATCH"), QStringLiteral("DELETE"), QStringLiteral("HEAD"),
        QStringLiteral("OPTIONS")});
    m_method->setToolTip(tr("The request's method: routes may claim only some methods."));
    m_path = new QLineEdit(QStringLiteral("/v1/login"));
    m_path->setToolTip(tr("Request target, query string allowed; routes resolve as the gateway "
                          "would (most specific pattern wins). Filled from the selected route."));
    m_client = new QLineEdit(QStringLiteral("203.0.113.7"));
    m_client->setToolTip(tr("The client address the gateway sees: the value of `ip` key parts "
                            "and of a missing part under `missing_key: ip`. Change it to act as "
                            "another client."));
    m_cost = new QSpinBox;
    m_cost->setRange(0, int(Route::kMaxCost));
    m_cost->setSpecialValueText(tr("route's cost"));
    m_cost->setToolTip(tr("Units the request takes; 0 uses the route's own cost."));
    // A plan to decide on, instead of the one the request names or maps to (policy `plans:`).
    m_plan = new QComboBox;
    m_plan->setObjectName(QStringLiteral("consolePlan"));
    m_plan->setToolTip(tr("The plan the request is decided on: its own (the plan its header names "
                          "or its key maps to, else the default), or one picked here to see what "
                          "another plan's client would get."));
    m_send = new QPushButton(icon(QStringLiteral("send")), tr("Se&nd"));
    m_send->setAutoRepeat(true); // hold to repeat
    m_send->setAutoRepeatDelay(400);
    m_send->setAutoRepeatInterval(100);
    m_send->setDefault(true);
    m_send->setToolTip(tr("Send one request (Enter in the path or address field). Hold the "
                          "button down to send ten a second."));
    auto *requestLabel = new QLabel(tr("Re&quest:"));
    requestLabel->setBuddy(m_method);
    auto *clientLabel = new QLabel(tr("C&lient:"));
    clientLabel->setBuddy(m_client);
    auto *costLabel = new QLabel(tr("Co&st:"));
    costLabel->setBuddy(m_cost);
    auto *row1 = new QHBoxLayout;
    row1->addWidget(requestLabel);
    row1->addWidget(m_method);
    row1->addWidget(m_path, 3);
    row1->addWidget(clientLabel);
    row1->addWidget(m_client, 1);
    row1->addWidget(costLabel);
    row1->addWidget(m_cost);
    m_planLabel = new QLabel(tr("Plan:"));
    m_planLabel->setBuddy(m_plan);
    row1->addWidget(m_planLabel);
    row1->addWidget(m_plan);
    row1->addWidget(m_send);
    return row1;
}

// The request's headers, and Send many.
QHBoxLayout *TestConsole::buildHeadersRow()
{
    m_headers = new QPlainTextEdit;
    m_headers->setTabChangesFocus(true);
    m_headers->setPlaceholderText(QStringLiteral("X-Api-Key: k-123"));
    m_headers->setToolTip(tr("Request headers, one `Name: value` per line: the values of "
                             "`header:` key parts. Leave a key's header out (or empty) to see "
                             "what the route's missing_key does. `query:` parts come from the "
                             "request target's query string."));
    m_headers->setAccessibleName(tr("Request headers"));
    m_headers->setFixedHeight(m_headers->fontMetrics().lineSpacing() * 2
        + 2 * (m_headers->frameWidth() + int(m_headers->document()->documentMargin())));
    auto *headersLabel = new QLabel(tr("&Headers:"));
    headersLabel->setBuddy(m_headers);
    auto *row2 = new QHBoxLayout;
    row2->addWidget(headersLabel);
    row2->addWidget(m_headers, 3);
    m_burstCount = new QSpinBox;
    // Enough to see a limit bite; more belongs in the simulator, which is built for millions.
    m_burstCount->setRange(1, 1'000);
    m_burstCount->setValue(20);
    m_burstCount->setToolTip(tr("How many requests to send (up to 1000; the Simulate page "
                                "runs millions)"));
    m_burstRate = new QDoubleSpinBox;
    m_burstRate->setRange(0.1, 10'000);
    m_burstRate->setDecimals(1);
    m_burstRate->setValue(10);
    m_burstRate->setSuffix(tr(" /s"));
    m_burstRate->setToolTip(tr("At what rate: on the manual clock they are spaced exactly, on "
                               "the real clock sent by a timer"));
    m_sendMany = new QPushButton(icon(QStringLiteral("run")), tr("Send &many"));
    m_sendMany->setToolTip(tr("Send N requests at R per second and count what happens"));
    m_counters = new QLabel;
    m_counters->setTextFormat(Qt::RichText);
    row2->addWidget(new QLabel(tr("Send")));
    row2->addWidget(m_burstCount);
    row2->addWidget(new QLabel(tr("at")));
    row2->addWidget(m_burstRate);
    row2->addWidget(m_sendMany);
    row2->addWidget(m_counters, 2);
    return row2;
}

// Real or manual clock, its steps, and Reset.
QHBoxLayout *TestConsole::buildClockRow()
{
    m_realTime = new QRadioButton(tr("&Real time"));
    m_manual = new QRadioButton(tr("&Manual clock"));
    m_realTime->setChecked(true);
    m_realTime->setToolTip(tr("Requests are stamped with the time you send them."));
    m_manual->setToolTip(tr("Time stands still until you step it: exact, repeatable experiments."));
    auto *row3 = new QHBoxLayout;
    row3->addWidget(new QLabel(tr("Clock:")));
    row3->addWidget(m_realTime);
    row3->addWidget(m_manual);
    for (const auto &[label, by] : {std::pair{QStringLiteral("+100 ms"), limiter::Micros(100'000)},
             std::pair{QStringLiteral("+1 s"), limiter::kMicrosPerSecond},
             std::pair{QStringLiteral("+10 s"), 10 * limiter::kMicrosPerSecond}}) {
        auto *b = new QPushButton(icon(QStringLiteral("step")), label);
        b->setToolTip(tr("Advance the manual clock by %1").arg(label.mid(1)));
        connect(b, &QPushButton::clicked, this, [this, by = by] { step(by); });
        row3->addWidget(b);
        m_stepButtons << b;
    }
    m_clock = new QLabel;
    row3->addWidget(m_clock, 1);
    auto *resetButton = new QPushButton(icon(QStringLiteral("revert")), tr("Reset &states"));
    resetButton->setToolTip(tr("Forget every key's state, restart the clock and clear the "
                               "decision and the counters."));
    connect(resetButton, &QPushButton::clicked, this, [this] {
        restart();
        clearDecision();
    });
    row3->addWidget(resetButton);
    return row3;
}

// The decision (summary and response) beside the request log.
QSplitter *TestConsole::buildOutput()
{
    auto *output = new QSplitter(Qt::Horizontal);
    m_summary = new QLabel;
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    auto *top = new QWidget;
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_summary);
    m_response = new QPlainTextEdit;
    m_response->setReadOnly(true);
    m_response->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_response->setAccessibleName(tr("Response"));
    m_response->setObjectName(QStringLiteral("response"));
    topLayout->addWidget(m_response, 1);
    output->addWidget(top);
    m_log = new QPlainTextEdit;
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(2000);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_log->setPlaceholderText(tr("Request log"));
    m_log->setAccessibleName(tr("Request log"));
    output->addWidget(m_log);
    output->setStretchFactor(0, 2);
    output->setStretchFactor(1, 3);
    return output;
}

void TestConsole::connectControls()
{
    connect(m_send, &QPushButton::clicked, this, [this] { sendOnce(); });
    connect(m_path, &QLineEdit::returnPressed, this, [this] { sendOnce(); });
    connect(m_client, &QLineEdit::returnPressed, this, [this] { sendOnce(); });
    connect(m_manual, &QRadioButton::toggled, this, &TestConsole::useManualClock);
    connect(m_sendMany, &QPushButton::clicked, this,
        [this] { sendMany(m_burstCount->value(), m_burstRate->value()); });
    m_burstTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_burstTimer, &QTimer::timeout, this, [this] {
        if (m_burstLeft <= 0) {
            m_burstTimer.stop();
            m_sendMany->setEnabled(true);
            return;
        }
        --m_burstLeft;
        sendOnce();
    });
}

void TestConsole::clearDecision()
{
    m_summary->setText(tr("Send a request to see the decision."));
    m_response->clear();
    m_counts = {};
    updateCounters();
}

void TestConsole::updateCounters()
{
    m_counters->setText(tr("<span style='color:%1'>admitted %2</span> · "
                           "<span style='color:%3'>denied %4</span> · delayed %5")
                            .arg(kAdmittedColor)
                            .arg(m_counts.admitted)
                            .arg(kDeniedColor)
                            .arg(m_counts.denied)
                            .arg(m_counts.delayed));
}

void TestConsole::sendMany(int count, double perSecond)
{
    count = std::clamp(count, 1, 1'000); // each answer is drawn: keep the GUI responsive
    perSecond = std::max(perSecond, 0.1);
    m_counts = {};
    updateCounters();
    const auto spacing = limiter::Micros(1e6 / perSecond);
    if (m_manual->isChecked()) {
        // Exact and immediate: the manual clock moves by the spacing between requests.
        for (int i = 0; i < count; ++i) {
            if (i > 0)
                step(spacing);
            sendOnce();
        }
        return;
    }
    m_burstLeft = count;
    m_sendMany->setEnabled(false);
    m_burstTimer.start(std::max(1, int(spacing / 1000)));
}

void TestConsole::showRoute(const Route &route)
{
    // A POST route sends POST; its path, with a value for each parameter.
    if (!route.methods.isEmpty())
        m_method->setCurrentText(route.methods.first());
    else
        m_method->setCurrentText(QStringLiteral("GET"));
    QStringList segments;
    for (const QString &segment : route.path.split(QLatin1Char('/'), Qt::SkipEmptyParts)) {
        if (segment == QLatin1String("**"))
            segments << QStringLiteral("any");
        else if (segment == QLatin1String("*") || segment.startsWith(QLatin1Char('{')))
            segments << QStringLiteral("1");
        else
            segments << segment;
    }
    m_path->setText(QLatin1Char('/') + segments.join(QLatin1Char('/')));
}

void TestConsole::restart()
{
    m_session.setPolicy(m_doc->policy());
    // The plans to pick from, keeping the pick while the policy still has it.
    const QStringList &plans = m_doc->policy().plans.names;
    const QString picked = m_plan->currentData().toString();
    {
        const QSignalBlocker block(m_plan);
        m_plan->clear();
        m_plan->addItem(tr("the request's"), QString());
        for (const QString &plan : plans)
            m_plan->addItem(plan, plan);
        m_plan->setCurrentIndex(std::max(0, m_plan->findData(picked)));
    }
    m_plan->setVisible(!plans.isEmpty());
    m_planLabel->setVisible(!plans.isEmpty());
    m_epochStart = limiter::SystemClock().now();
    m_realStart.start();
    m_manualNow = 0;
    updateClockLabel();
    // Once per run of edits, not once per keystroke.
    const QString line
        = tr("— policy changed: fresh states for %1 route(s) —").arg(m_doc->policy().routes.size());
    if (m_log && m_log->document()->lastBlock().text() != line)
        m_log->appendPlainText(line);
}

void TestConsole::useManualClock(bool manual)
{
    if (m_manual->isChecked() != manual)
        m_manual->setChecked(manual);
    // Continue from the real clock's reading so that the two never run backwards.
    if (manual)
        m_manualNow = m_realStart.nsecsElapsed() / 1000;
    for (QPushButton *b : m_stepButtons)
        b->setEnabled(manual);
    updateClockLabel();
}

void TestConsole::step(limiter::Micros by)
{
    m_manualNow += by;
    updateClockLabel();
}

limiter::Micros TestConsole::now() const
{
    const limiter::Micros since
        = m_manual->isChecked() ? m_manualNow : m_realStart.nsecsElapsed() / 1000;
    return m_epochStart + since;
}

void TestConsole::updateClockLabel()
{
    if (!m_clock)
        return;
    m_clock->setText(
        m_manual->isChecked() ? tr("t = %1 (manual)").arg(seconds(m_manualNow)) : tr("real time"));
    for (QPushButton *b : m_stepButtons)
        b->setEnabled(m_manual->isChecked());
}

ConsoleResponse TestConsole::sendOnce()
{
    const ConsoleRequest request{m_method->currentText().trimmed().toUpper(), m_path->text(),
        m_client->text(), m_cost->value(), requestHeaders(),
        m_plan->currentData().toString().isEmpty()
            ? std::nullopt
            : std::optional<QString>(m_plan->currentData().toString())};
    const ConsoleResponse r = m_session.send(request, now());
    showResponse(request, r);
    return r;
}

QList<QPair<QString, QString>> TestConsole::requestHeaders() const
{
    QList<QPair<QString, QString>> headers;
    const QStringList lines = m_headers->toPlainText().split(QLatin1Char('\n'));
    for (const QString &line : lines) {
        const qsizetype colon = line.indexOf(QLatin1Char(':'));
        if (colon > 0)
            headers.append({line.left(colon).trimmed(), line.mid(colon + 1).trimmed()});
    }
    return headers;
}

void TestConsole::showResponse(const ConsoleRequest &request, const ConsoleResponse &r)
{
    const QString t = seconds(now() - m_epochStart);
    if (!r.route) {
        m_summary->setText(
            tr("<b>No route limits %1 %2</b>: the gateway passes it to the upstream.")
                .arg(request.method.toHtmlEscaped(), request.target.toHtmlEscaped()));
        m_response->setPlainText(QStringLiteral("HTTP/1.1 200 OK   (from the upstream)"));
        m_log->appendPlainText(
            QStringLiteral("%1  %2 %3 → not limited").arg(t, request.method, request.target));
        return;
    }
    if (!r.problem.isEmpty()) {
        m_summary->setText(tr("<b>Route '%1'</b> has an invalid limit: %2")
                               .arg(r.routeId.toHtmlEscaped(), r.problem.toHtmlEscaped()));
        m_response->clear();
        return;
    }
    if (!r.counted) {
        (r.status == 200 ? m_counts.admitted : m_counts.denied)++;
        updateCounters();
        const QString parts = r.missingKeyParts.join(QStringLiteral(", "));
        const bool denied = r.status != 200 || r.shadowed;
        const QString verdict = denied
            ? (r.shadowed ? tr("denied for the missing %1 — passed (shadow mode)").arg(parts)
                          : tr("denied: the request lacks %1 (missing_key: deny)").arg(parts))
            : tr("not limited: the request lacks %1 (missing_key: allow)").arg(parts);
        m_summary->setText(tr("<b>Route '%1'</b>: <b>%2</b>")
                               .arg(r.routeId.toHtmlEscaped(), verdict.toHtmlEscaped()));
        m_response->setPlainText(
            QStringLiteral("HTTP/1.1 %1 %2\n")
                .arg(r.status)
                .arg(r.status == 200 ? QStringLiteral("OK") : QStringLiteral("Too Many Requests")));
        m_log->appendPlainText(QStringLiteral("%1  %2 %3 → %4 %5")
                                   .arg(t, request.method, request.target)
                                   .arg(r.status)
                                   .arg(verdict));
        return;
    }
    const limiter::Decision &d = r.decision;
    if (d.allowed && d.delay > 0)
        ++m_counts.delayed;
    (d.allowed || r.shadowed ? m_counts.admitted : m_counts.denied)++;
    updateCounters();
    QString verdict = d.allowed
        ? (d.delay > 0 ? tr("admitted after a delay of %1").arg(seconds(d.delay)) : tr("admitted"))
        : r.shadowed ? tr("over the limit — passed (shadow mode)")
                     : tr("denied, retry after %1").arg(seconds(d.retryAfter));
    QString quota;
    if (r.quotaAfter)
        quota = tr("%1 of %2 left; whole again in %3")
                    .arg(r.quotaAfter->remaining)
                    .arg(r.quotaAfter->limit)
                    .arg(seconds(r.quotaAfter->resetAfter));
    QString keyText = r.key.toHtmlEscaped();
    if (!r.plan.isEmpty())
        keyText += tr(" on plan <b>%1</b>").arg(r.plan.toHtmlEscaped());
    if (!r.missingKeyParts.isEmpty())
        keyText += tr(" (lacks %1: %2)")
                       .arg(r.missingKeyParts.join(QStringLiteral(", ")).toHtmlEscaped(),
                           r.missingKey == MissingKeyMode::Ip
                               ? tr("counted under the client address")
                               : tr("counted in the one bucket shared by such requests"));
    m_summary->setText(
        tr("<b>Route '%1'</b>, key <code>%2</code>: <b style='color:%5'>%3</b>"
           "<br>Key state: %4")
            .arg(r.routeId.toHtmlEscaped(), keyText, verdict.toHtmlEscaped(), quota.toHtmlEscaped(),
                r.status == 200 ? kAdmittedColor : kDeniedColor)
        + limitLines(r));
    QString text
        = QStringLiteral("HTTP/1.1 %1 %2\n")
              .arg(r.status)
              .arg(r.status == 200 ? QStringLiteral("OK") : QStringLiteral("Too Many Requests"));
    for (const auto &[name, value] : r.headers)
        text += QStringLiteral("%1: %2\n").arg(name, value);
    m_response->setPlainText(text);
    m_log->appendPlainText(
        QStringLiteral("%1  %2 %3 [%4] → %5 %6%7")
            .arg(t, request.method, request.target, r.key)
            .arg(r.status)
            .arg(verdict,
                r.limits.size() > 1 ? QStringLiteral(" (%1)").arg(r.decidingLimit) : QString()));
}

// A route with several limits: one line per limit, what it said and what it has left, so that
// the operator sees which limit is close to denying, not only the one that decided.
QString TestConsole::limitLines(const ConsoleResponse &r)
{
    if (r.limits.size() < 2)
        return {};
    QString out;
    for (const ConsoleLimitResult &l : r.limits) {
        QString said;
        if (l.unlimited)
            said = tr("unlimited on plan %1: not counted").arg(r.plan);
        else if (!l.counted)
            said = tr("not counted (the request lacks its key)");
        else if (l.decision.allowed)
            said = r.status == 200 ? tr("admits") : tr("admits; gave back (another limit denied)");
        else
            said = l.shadow ? tr("would deny")
                            : tr("denies, retry after %1").arg(seconds(l.decision.retryAfter));
        QString left;
        if (l.quotaAfter)
            left = tr(", %1 of %2 left").arg(l.quotaAfter->remaining).arg(l.quotaAfter->limit);
        out += tr("<br>&nbsp;&nbsp;%1<b>%2</b> [<code>%3</code>]: %4%5%6")
                   .arg(l.name == r.decidingLimit ? QStringLiteral("▸ ") : QString(),
                       l.name.toHtmlEscaped(), l.key.toHtmlEscaped(), said.toHtmlEscaped(),
                       left.toHtmlEscaped(), l.shadow ? tr(" (shadow)") : QString());
    }
    return out;
}

} // namespace qs
