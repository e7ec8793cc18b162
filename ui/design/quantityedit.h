#pragma once
// A duration as a count and a unit that read as one field: "5 minutes", "2 hours" (the Simulate
// page's run length). A duration with no standard unit keeps its own as an extra entry instead
// of being rounded away. Limit fields use LimitValueEdit, which takes the policy format's text.
#include "limiter/algorithms/rate.h"

#include <QWidget>

class QComboBox;
class QSpinBox;

namespace qs {

class QuantityEdit : public QWidget {
    Q_OBJECT
public:
    explicit QuantityEdit(QWidget *parent = nullptr);

    // count × unit = the duration.
    void setValue(std::int64_t count, limiter::Micros unit);
    std::int64_t count() const;
    limiter::Micros unit() const;

    QSpinBox *countBox() const { return m_count; }
    QComboBox *unitBox() const { return m_unit; }

signals:
    void edited();

private:
    void addUnit(limiter::Micros micros);

    QSpinBox *m_count;
    QComboBox *m_unit;
};

} // namespace qs
