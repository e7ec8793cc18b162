#include "model/probe/httpprobe.h"

#include <QDateTime>
#include <QNetworkReply>
#include <QNetworkRequest>

#include <chrono>

namespace qs {

namespace {

limiter::Micros wallNowUs()
{
    using namespace std::chrono;
    return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

// Errors that mean nobody answers at that address: the probe stops instead of piling up more.
bool meansUnreachable(QNetworkReply::NetworkError e)
{
    switch (e) {
    case QNetworkReply::ConnectionRefusedError:
    case QNetworkReply::HostNotFoundError:
    case QNetworkReply::SslHandshakeFailedError:
    case QNetworkReply::ProtocolUnknownError:
        return true;
    default:
        return false;
    }
}

} // namespace

HttpProbe::HttpProbe(Policy policy, ProbePlan plan, ProbeSettings settings,
    std::optional<EnforcedLimit> gateway, QObject *parent)
    : QObject(parent), m_policy(std::move(policy)), m_plan(std::move(plan)),
      m_settings(std::move(settings))
{
    m_comparator = std::make_unique<ProbeComparator>(
        m_policy, m_plan, std::move(gateway), m_settings.gateway);
    m_samples.resize(m_plan.requests.size());
    m_done.assign(m_plan.requests.size(), false);
    m_inFlight.resize(m_plan.requests.size());
    m_tick.setSingleShot(true);
    m_tick.setTimerType(Qt::PreciseTimer);
    connect(&m_tick, &QTimer::timeout, this, &HttpProbe::sendDue);
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, &HttpProbe::cancel);
    // Never follow a redirect: it could lead anywhere, and the probe talks to one host only.
    m_network.setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
}

HttpProbe::~HttpProbe()
{
    for (InFlight &f : m_inFlight)
        if (f.reply) {
            f.reply->disconnect(this);
            f.reply->abort();
        }
}

qint64 HttpProbe::steadyUs() const
{
    return m_clock.nsecsElapsed() / 1000;
}

void HttpProbe::start()
{
    m_running = true;
    limiter::Micros wait = 0;
    if (m_plan.alignStartTo > 0) {
        // Spike traffic aims at window edges: start on one (epoch-aligned, as the Redis scripts
        // and windowed gateways count), unless that means waiting over a minute.
        const limiter::Micros w = m_plan.alignStartTo;
        const limiter::Micros now = wallNowUs();
        wait = (w - now % w) % w;
        if (wait > 60 * limiter::kMicrosPerSecond) {
            m_plan.warnings << QStringLiteral("the spike is not aligned to a window edge (the "
                                              "next one is over a minute away)");
            wait = 0;
        }
    }
    QTimer::singleShot(int(wait / 1000), Qt::PreciseTimer, this, &HttpProbe::begin);
}

void HttpProbe::begin()
{
    if (!m_running)
        return;
    m_clock.start();
    // The hard stop: the traffic's length, then the slowest answer, then the retry check.
    const limiter::Micros budget = m_settings.duration + m_settings.requestTimeout
        + m_settings.retryCheckLimit + 2 * m_settings.requestTimeout;
    m_deadline.start(int(std::min<limiter::Micros>(budget / 1000, INT_MAX)));
    sendDue();
}

void HttpProbe::sendDue()
{
    if (!m_running || m_cancelled)
        return;
    const qint64 now = steadyUs();
    while (m_nextToSend < m_plan.requests.size() && m_plan.requests[m_nextToSend].at <= now)
        send(m_nextToSend++);
    if (m_nextToSend < m_plan.requests.size()) {
        const qint64 due = m_plan.requests[m_nextToSend].at - steadyUs();
        m_tick.start(int(std::max<qint64>(0, due / 1000)));
    } else {
        maybeFinishTraffic();
    }
}

QNetworkReply *HttpProbe::request(const PlannedRequest &p)
{
    QNetworkRequest req(m_plan.urlFor(p));
    for (const auto &[name, value] : m_plan.headersFor(p))
        req.setRawHeader(name.toLatin1(), value.toUtf8());
    req.setRawHeader("User-Agent", "quota-studio-probe");
    req.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
    req.setTransferTimeout(int(m_settings.requestTimeout / 1000));
    return m_network.sendCustomRequest(req, m_plan.method.toLatin1());
}

void HttpProbe::send(std::size_t index)
{
    const PlannedRequest &p = m_plan.requests[index];
    ProbeSample &s = m_samples[index];
    s.number = qint64(index) + 1;
    s.client = p.client;
    s.keyless = p.keyless;
    s.offset = steadyUs();
    s.sentAt = wallNowUs();
    QNetworkReply *reply = request(p);
    m_inFlight[index] = {reply, s.offset};
    connect(reply, &QNetworkReply::finished, this, [this, index, reply] { onReply(index, reply); });
}

void HttpProbe::onReply(std::size_t index, QNetworkReply *reply)
{
    reply->deleteLater();
    m_inFlight[index].reply = nullptr;
    ProbeSample &s = m_samples[index];
    s.elapsed = steadyUs() - m_inFlight[index].sentSteadyUs;
    s.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (s.status == 0)
        s.error = reply->errorString();
    else
        ++m_responses;
    s.headers = parseRateLimitHeaders(reply->rawHeaderPairs(), wallNowUs() / 1'000'000);
    m_done[index] = true;
    ++m_answered;
    if (s.status == 0 && m_responses == 0 && meansUnreachable(reply->error())) {
        m_unreachable = QStringLiteral("%1 %2: %3")
                            .arg(m_plan.method, m_plan.urlFor(m_plan.requests[index]).toString(),
                                reply->errorString());
        cancel();
        return;
    }
    emit progress(m_answered, qint64(m_plan.requests.size()));
    advanceComparison();
    maybeFinishTraffic();
}

void HttpProbe::advanceComparison()
{
    const std::size_t before = m_nextToCompare;
    std::vector<ComparedRequest> batch;
    while (m_nextToCompare < m_nextToSend && m_done[m_nextToCompare])
        batch.push_back(m_comparator->add(m_samples[m_nextToCompare++]));
    if (m_nextToCompare != before) {
        emit comparedBatch(batch);
    }
}

void HttpProbe::maybeFinishTraffic()
{
    if (m_trafficDone || m_nextToSend < m_plan.requests.size()
        || m_nextToCompare < m_plan.requests.size())
        return;
    m_trafficDone = true;
    startRetryCheck();
}

void HttpProbe::startRetryCheck()
{
    const ComparedRequest *denial = m_comparator->lastDenialWithRetryAfter();
    if (!denial || m_cancelled
        || *denial->sample.headers.retryAfterS * limiter::kMicrosPerSecond
            > m_settings.retryCheckLimit) {
        finish();
        return;
    }
    m_retry.performed = true;
    m_retry.request = denial->sample.number;
    m_retry.waitedS = *denial->sample.headers.retryAfterS;
    const PlannedRequest again{0, denial->sample.client, denial->sample.keyless};
    // Counted from now, which is after that response arrived: the client waited at least as
    // told.
    QTimer::singleShot(int(m_retry.waitedS * 1000), Qt::PreciseTimer, this, [this, again] {
        if (m_cancelled)
            return;
        QNetworkReply *reply = request(again);
        connect(reply, &QNetworkReply::finished, this, [this, reply] { onRetryReply(reply); });
    });
}

void HttpProbe::onRetryReply(QNetworkReply *reply)
{
    reply->deleteLater();
    m_retry.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    m_retry.admitted = m_retry.status != 0 && m_retry.status != m_comparator->denyStatus();
    finish();
}

void HttpProbe::cancel()
{
    if (!m_running)
        return;
    m_cancelled = true;
    m_tick.stop();
    for (InFlight &f : m_inFlight)
        if (f.reply) {
            f.reply->disconnect(this);
            f.reply->abort();
            f.reply->deleteLater();
            f.reply = nullptr;
        }
    // Compare what was answered in order; the rest never happened as far as the report goes.
    advanceComparison();
    finish();
}

void HttpProbe::finish()
{
    if (!m_running)
        return;
    m_running = false;
    m_tick.stop();
    m_deadline.stop();
    m_report = summarize(*m_comparator, m_plan, m_settings.traffic.text, m_retry);
    m_report.cancelled = m_cancelled && m_unreachable.isEmpty();
    m_report.unreachable = m_unreachable;
    if (m_report.responses == 0 && m_report.unreachable.isEmpty() && !m_report.cancelled) {
        for (const ProbeSample &s : m_samples)
            if (!s.error.isEmpty()) {
                m_report.unreachable = s.error;
                break;
            }
    }
    emit finished();
    emit done(m_report);
}

} // namespace qs
