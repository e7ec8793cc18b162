#include "ui/monitor/discoverdialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace qs {

namespace {

enum Column { Pattern, Count, Type, Preset, Note, ColumnCount };

} // namespace

DiscoverDialog::DiscoverDialog(const RespClient::Options &connection, qint64 budgetPerSecond,
    const QStringList &routes, QWidget *parent)
    : QDialog(parent), m_survey(m_client), m_status(new QLabel), m_table(new QTableWidget),
      m_route(new QComboBox), m_add(new QPushButton(tr("&Add layout to policy")))
{
    setWindowTitle(tr("Discover key families"));
    resize(820, 460);
    auto *layout = new QVBoxLayout(this);
    m_status->setWordWrap(true);
    m_status->setText(tr("Connecting to %1:%2…").arg(connection.host).arg(connection.port));
    layout->addWidget(m_status);
    m_table->setColumnCount(ColumnCount);
    m_table->setHorizontalHeaderLabels(
        {tr("Pattern"), tr("Keys seen"), tr("Type"), tr("Layout preset"), tr("What it is")});
    m_table->horizontalHeader()->setSectionResizeMode(Note, QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    layout->addWidget(m_table, 1);
    auto *row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("For &route:")));
    m_route->addItems(routes);
    m_route->setToolTip(tr("The route whose limit these keys enforce"));
    row->addWidget(m_route, 1);
    m_add->setToolTip(tr("Adds the family's layout to the policy's redis.layouts "
                         "(Edit ▸ Undo takes it back)"));
    row->addWidget(m_add);
    layout->addLayout(row);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    qobject_cast<QLabel *>(row->itemAt(0)->widget())->setBuddy(m_route);

    connect(m_table, &QTableWidget::itemSelectionChanged, this, &DiscoverDialog::updateAdd);
    connect(m_add, &QPushButton::clicked, this, [this] {
        const int r = m_table->currentRow();
        if (r < 0 || r >= m_report.families.size() || !m_report.families[r].layout)
            return;
        RedisLayout layout = *m_report.families[r].layout;
        layout.routeId = m_route->currentText();
        emit layoutChosen(layout);
        m_status->setText(tr("Added the %1 layout for route %2.")
                              .arg(layout.preset.value_or(QString()), layout.routeId));
    });
    connect(&m_survey, &KeyspaceSurvey::progress, this, [this](qint64 keys) {
        m_status->setText(
            tr("Sampling the keyspace… %1 keys looked at").arg(QLocale().toString(keys)));
    });
    connect(&m_survey, &KeyspaceSurvey::finished, this, &DiscoverDialog::showReport);
    updateAdd();

    RespClient::Options options = connection;
    options.clientName = "quota-studio-discover";
    m_client.open(options);
    KeyspaceSurvey::Options survey;
    survey.budgetPerSecond = budgetPerSecond;
    m_survey.run(survey);
}

void DiscoverDialog::showReport(const SurveyReport &report)
{
    m_report = report;
    m_client.close();
    if (!report.error.isEmpty()) {
        m_status->setText(tr("Discover failed: %1").arg(report.error.toHtmlEscaped()));
        emit surveyed();
        return;
    }
    m_status->setText(
        tr("%1 keys looked at%2; %3 families. Choose one with a preset and the route it limits.")
            .arg(QLocale().toString(report.keysLookedAt),
                report.wholeKeyspace ? tr(" (the whole keyspace)") : tr(" (a sample)"))
            .arg(report.families.size()));
    m_table->setRowCount(int(report.families.size()));
    for (int r = 0; r < report.families.size(); ++r) {
        const KeyFamily &f = report.families[r];
        const QStringList cells = {QString::fromUtf8(f.pattern), QLocale().toString(f.count),
            QString::fromUtf8(f.type), f.preset.isEmpty() ? tr("none") : f.preset, f.note};
        for (int c = 0; c < ColumnCount; ++c) {
            auto *item = new QTableWidgetItem(cells[c]);
            if (c == Count)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (f.layout)
                item->setToolTip(f.layoutYaml);
            m_table->setItem(r, c, item);
        }
    }
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setSectionResizeMode(Note, QHeaderView::Stretch);
    updateAdd();
    emit surveyed();
}

bool DiscoverDialog::selectPreset(const QString &preset)
{
    for (int r = 0; r < m_report.families.size(); ++r)
        if (m_report.families[r].preset == preset && m_report.families[r].layout) {
            m_table->selectRow(r);
            return true;
        }
    return false;
}

void DiscoverDialog::updateAdd()
{
    const int r = m_table->currentRow();
    const bool offers = r >= 0 && r < m_report.families.size()
        && m_report.families[r].layout.has_value() && m_route->count() > 0;
    m_add->setEnabled(offers);
}

} // namespace qs
