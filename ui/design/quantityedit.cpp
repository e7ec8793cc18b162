#include "ui/design/quantityedit.h"

#include "limiter/algorithms/rate.h"
#include "model/policy/ratesyntax.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QSpinBox>

namespace qs {

namespace {
constexpr limiter::Micros kSecond = limiter::kMicrosPerSecond;
constexpr limiter::Micros kStandardUnits[]
    = {kSecond, 60 * kSecond, 3600 * kSecond, 86400 * kSecond};
} // namespace

QuantityEdit::QuantityEdit(QWidget *parent)
    : QWidget(parent), m_count(new QSpinBox(this)), m_unit(new QComboBox(this))
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_count->setRange(0, int(limiter::kMaxCount));
    m_count->setAccelerated(true);
    m_count->setMinimumWidth(
        m_count->fontMetrics().horizontalAdvance(QStringLiteral("0000000000")));
    layout->addWidget(m_count, 1);
    layout->addWidget(m_unit, 1);
    for (const limiter::Micros u : kStandardUnits)
        addUnit(u);
    setFocusProxy(m_count);
    connect(m_count, &QSpinBox::valueChanged, this, &QuantityEdit::edited);
    connect(m_unit, &QComboBox::activated, this, &QuantityEdit::edited);
}

void QuantityEdit::addUnit(limiter::Micros micros)
{
    static const char *const durationNames[]
        = {QT_TR_NOOP("seconds"), QT_TR_NOOP("minutes"), QT_TR_NOOP("hours"), QT_TR_NOOP("days")};
    for (int i = 0; i < 4; ++i)
        if (kStandardUnits[i] == micros) {
            m_unit->addItem(tr(durationNames[i]), QVariant::fromValue<qint64>(micros));
            return;
        }
    m_unit->addItem(tr("× %1").arg(formatDuration(micros)), QVariant::fromValue<qint64>(micros));
}

void QuantityEdit::setValue(std::int64_t count, limiter::Micros unit)
{
    // A duration is shown in the largest standard unit that divides it.
    if (unit > 0) {
        const limiter::Micros total = count * unit;
        for (int i = 3; i >= 0; --i)
            if (total % kStandardUnits[i] == 0) {
                count = total / kStandardUnits[i];
                unit = kStandardUnits[i];
                break;
            }
    }
    int at = m_unit->findData(QVariant::fromValue<qint64>(unit));
    if (at < 0) {
        addUnit(unit);
        at = m_unit->count() - 1;
    }
    const QSignalBlocker blockCount(m_count), blockUnit(m_unit);
    if (m_count->value() != count)
        m_count->setValue(int(count));
    m_unit->setCurrentIndex(at);
}

std::int64_t QuantityEdit::count() const
{
    return m_count->value();
}

limiter::Micros QuantityEdit::unit() const
{
    return m_unit->currentData().toLongLong();
}

} // namespace qs
