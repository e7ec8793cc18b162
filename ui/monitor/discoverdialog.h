#pragma once
// Monitor ▸ Discover: samples an unknown Redis (read-only, within the read budget) and lists its
// key families with the layout preset each matches. Choosing a family and a route emits the
// layout, which the Monitor tab adds to the open policy as one undoable edit.
#include "model/monitor/keyspacesurvey.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace qs {

class DiscoverDialog : public QDialog {
    Q_OBJECT
public:
    DiscoverDialog(const RespClient::Options &connection, qint64 budgetPerSecond,
        const QStringList &routes, QWidget *parent = nullptr);

    QTableWidget *families() const { return m_table; }
    QComboBox *route() const { return m_route; }
    QPushButton *addButton() const { return m_add; }
    const SurveyReport &report() const { return m_report; }
    // Selects the first family offering `preset`; false when none does.
    bool selectPreset(const QString &preset);

signals:
    void surveyed(); // the report is in
    void layoutChosen(const qs::RedisLayout &layout);

private:
    void showReport(const SurveyReport &report);
    void updateAdd();

    RespClient m_client;
    KeyspaceSurvey m_survey;
    SurveyReport m_report;
    QLabel *m_status;
    QTableWidget *m_table;
    QComboBox *m_route;
    QPushButton *m_add;
};

} // namespace qs
