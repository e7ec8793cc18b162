#pragma once
// Beside the route editor: what the chosen algorithm guarantees, how it treats a burst, what a
// key costs in memory and when to choose it — and a small live chart of what the route's own
// parameters do to a burst followed by sustained overload.
#include "limiter/algorithms/algorithm.h"

#include <QWidget>

#include <optional>

class QLabel;
class QChart;
class QChartView;

namespace qs {

class AlgorithmPanel : public QWidget {
    Q_OBJECT
public:
    explicit AlgorithmPanel(QWidget *parent = nullptr);

    // nullopt: the route's limit is not valid yet (the chart says so instead of guessing).
    void show(limiter::Algorithm algorithm, const std::optional<limiter::AlgorithmConfig> &config);
    QChartView *chartView() const { return m_view; }

private:
    void plot(const limiter::AlgorithmConfig &config);

    QLabel *m_text;
    QChartView *m_view;
};

} // namespace qs
