#pragma once
// A count and a unit as two widgets that read as one field: "10 per second", "5 minutes".
// Rates and durations keep the operator's own text when it has no unit here (5/250ms): the
// unit list then gets that period as an extra entry instead of rounding it away.
#include "limiter/rate.h"

#include <QWidget>

class QComboBox;
class QSpinBox;

namespace qs {

class QuantityEdit : public QWidget {
    Q_OBJECT
public:
    enum class Kind { Rate, Duration };
    explicit QuantityEdit(Kind kind, QWidget *parent = nullptr);

    // For a rate: count per period. For a duration: count × unit = the duration.
    void setValue(std::int64_t count, limiter::Micros unit);
    std::int64_t count() const;
    limiter::Micros unit() const;
    // The policy-file text of the value: "2/s", "100/min", "5/250ms", "30s", "1h".
    QString text() const;

    QSpinBox *countBox() const { return m_count; }
    QComboBox *unitBox() const { return m_unit; }

signals:
    void edited();

private:
    void addUnit(limiter::Micros micros);

    Kind m_kind;
    QSpinBox *m_count;
    QComboBox *m_unit;
};

} // namespace qs
