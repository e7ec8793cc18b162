#include "ui/design/testconsole.h"

#include "limiter/clock.h"
#include "ui/common/icons.h"
#include "ui/document/policydocument.h"

#include <QComboBox>
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

namespace qs {

namespace {
QString seconds(limiter::Micros us)
{
    return QStringLiteral("%1 s").arg(double(us) / 1e6, 0, 'f', 3);
}
} // namespace

TestConsole::TestConsole(PolicyDocument *doc, QWidget *parent) : QWidget(parent), m_doc(doc)
{
    build();
    connect(doc, &PolicyDocument::reset, this, &TestConsole::restart);
    connect(doc, &PolicyDocument::routesChanged, this, &TestConsole::restart);
    connect(doc, &PolicyDocument::routeChanged, this, &TestConsole::restart);
    connect(doc, &PolicyDocument::policyFieldsChanged, this, &TestConsole::restart);
    restart();
}

void TestConsole::build()
{
    auto *layout = new QHBoxLayout(this);
    auto *controls = new QWidget;
    auto *form = new QFormLayout(controls);
    m_method = new QComboBox;
    m_method->setEditable(true);
    m_method->addItems({QStringLiteral("GET"), QStringLiteral("POST"), QStringLiteral("PUT"),
        QStringLiteral("PATCH"), QStringLiteral("DELETE")});
    m_path = new QLineEdit(QStringLiteral("/v1/login"));
    m_path->setToolTip(tr("Request target, query string allowed; routes resolve as the gateway "
                          "would (most specific pattern wins)."));
    auto *request = new QWidget;
    auto *requestLayout = new QHBoxLayout(request);
    requestLayout->setContentsMargins(0, 0, 0, 0);
    requestLayout->addWidget(m_method);
    requestLayout->addWidget(m_path, 1);
    form->addRow(tr("Re&quest:"), request);
    m_client = new QLineEdit(QStringLiteral("203.0.113.7"));
    m_client->setToolTip(tr("The client address the gateway sees: the value of `ip` key parts "
                            "and of a missing part under `missing_key: ip`. Change it to act as "
                            "another client."));
    form->addRow(tr("C&lient address:"), m_client);
    m_headers = new QPlainTextEdit;
    m_headers->setTabChangesFocus(true);
    m_headers->setPlaceholderText(QStringLiteral("X-Api-Key: k-123"));
    m_headers->setToolTip(tr("Request headers, one `Name: value` per line: the values of "
                             "`header:` key parts. Leave a key's header out (or empty) to see "
                             "what the route's missing_key does. `query:` parts come from the "
                             "request target's query string."));
    m_headers->setAccessibleName(tr("Request headers"));
    m_headers->setFixedHeight(m_headers->fontMetrics().lineSpacing() * 3
        + 2 * (m_headers->frameWidth() + int(m_headers->document()->documentMargin())));
    form->addRow(tr("&Headers:"), m_headers);
    m_cost = new QSpinBox;
    m_cost->setRange(0, 1'000'000);
    m_cost->setSpecialValueText(tr("route's cost"));
    form->addRow(tr("Co&st:"), m_cost);

    m_send = new QPushButton(icon(QStringLiteral("send")), tr("Se&nd"));
    m_send->setAutoRepeat(true); // hold to repeat
    m_send->setAutoRepeatDelay(400);
    m_send->setAutoRepeatInterval(100);
    m_send->setDefault(true);
    m_send->setToolTip(tr("Send one request (Enter in the path or key field). Hold the button "
                          "down to send ten a second."));
    form->addRow(QString(), m_send);

    m_realTime = new QRadioButton(tr("&Real time"));
    m_manual = new QRadioButton(tr("&Manual clock"));
    m_realTime->setChecked(true);
    m_realTime->setToolTip(tr("Requests are stamped with the time you send them."));
    m_manual->setToolTip(tr("Time stands still until you step it: exact, repeatable experiments."));
    auto *clockModes = new QWidget;
    auto *clockLayout = new QHBoxLayout(clockModes);
    clockLayout->setContentsMargins(0, 0, 0, 0);
    clockLayout->addWidget(m_realTime);
    clockLayout->addWidget(m_manual);
    form->addRow(tr("Clock:"), clockModes);
    auto *steps = new QWidget;
    auto *stepLayout = new QHBoxLayout(steps);
    stepLayout->setContentsMargins(0, 0, 0, 0);
    for (const auto &[label, by] : {std::pair{QStringLiteral("+100 ms"), limiter::Micros(100'000)},
             std::pair{QStringLiteral("+1 s"), limiter::kMicrosPerSecond},
             std::pair{QStringLiteral("+10 s"), 10 * limiter::kMicrosPerSecond}}) {
        auto *b = new QPushButton(icon(QStringLiteral("step")), label);
        b->setToolTip(tr("Advance the manual clock by %1").arg(label.mid(1)));
        connect(b, &QPushButton::clicked, this, [this, by = by] { step(by); });
        stepLayout->addWidget(b);
        m_stepButtons << b;
    }
    m_clock = new QLabel;
    form->addRow(tr("Step:"), steps);
    form->addRow(tr("Now:"), m_clock);
    auto *resetButton = new QPushButton(icon(QStringLiteral("revert")), tr("Reset &states"));
    resetButton->setToolTip(tr("Forget every key's state and restart the clock."));
    connect(resetButton, &QPushButton::clicked, this, &TestConsole::restart);
    form->addRow(QString(), resetButton);
    layout->addWidget(controls);

    auto *output = new QSplitter(Qt::Vertical);
    m_summary = new QLabel(tr("Send a request to see the decision."));
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
    topLayout->addWidget(m_response, 1);
    output->addWidget(top);
    m_log = new QPlainTextEdit;
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(2000);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_log->setPlaceholderText(tr("Request log"));
    m_log->setAccessibleName(tr("Request log"));
    output->addWidget(m_log);
    layout->addWidget(output, 1);

    connect(m_send, &QPushButton::clicked, this, [this] { sendOnce(); });
    connect(m_path, &QLineEdit::returnPressed, this, [this] { sendOnce(); });
    connect(m_client, &QLineEdit::returnPressed, this, [this] { sendOnce(); });
    connect(m_manual, &QRadioButton::toggled, this, &TestConsole::useManualClock);
}

void TestConsole::restart()
{
    m_session.setPolicy(m_doc->policy());
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
        m_client->text(), m_cost->value(), requestHeaders()};
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
    if (!r.missingKeyParts.isEmpty())
        keyText += tr(" (lacks %1: %2)")
                       .arg(r.missingKeyParts.join(QStringLiteral(", ")).toHtmlEscaped(),
                           r.missingKey == MissingKeyMode::Ip
                               ? tr("counted under the client address")
                               : tr("counted in the one bucket shared by such requests"));
    m_summary->setText(tr("<b>Route '%1'</b>, key <code>%2</code>: <b>%3</b><br>Key state: %4")
                           .arg(r.routeId.toHtmlEscaped(), keyText, verdict.toHtmlEscaped(),
                               quota.toHtmlEscaped()));
    QString text
        = QStringLiteral("HTTP/1.1 %1 %2\n")
              .arg(r.status)
              .arg(r.status == 200 ? QStringLiteral("OK") : QStringLiteral("Too Many Requests"));
    for (const auto &[name, value] : r.headers)
        text += QStringLiteral("%1: %2\n").arg(name, value);
    m_response->setPlainText(text);
    m_log->appendPlainText(QStringLiteral("%1  %2 %3 [%4] → %5 %6")
                               .arg(t, request.method, request.target, r.key)
                               .arg(r.status)
                               .arg(verdict));
}

} // namespace qs
