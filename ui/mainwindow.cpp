#include "ui/mainwindow.h"

#include "ui/placeholderpage.h"

#include <QFileInfo>
#include <QStatusBar>
#include <QTabWidget>

namespace qs {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent), m_tabs(new QTabWidget(this))
{
    m_tabs->setDocumentMode(true);
    // Each activity's own issue replaces its placeholder with the real page.
    const struct {
        QString label; // with the & of its Alt+key mnemonic
        QString explanation;
    } activities[] = {
        {tr("&Design"),
            tr("Routes, match rules, keys and limits of the policy, with validation "
               "as you type.")},
        {tr("&Simulate"),
            tr("Run traffic patterns through the embedded limiter engine and "
               "compare algorithms.")},
        {tr("&Export"),
            tr("Produce NGINX, Envoy, Kong, Traefik, HAProxy and Redis files, with a "
               "warning wherever a gateway cannot express the design exactly.")},
        {tr("&Monitor"),
            tr("Watch the live quota keys of a Redis-backed deployment in real-time "
               "charts.")},
        {tr("&Probe"),
            tr("Send requests to a running gateway and compare what it enforces with "
               "what was designed.")},
    };
    for (const auto &a : activities) {
        const QString title = QString(a.label).remove(QLatin1Char('&'));
        m_tabs->addTab(new PlaceholderPage(title, a.explanation), a.label);
    }
    setCentralWidget(m_tabs);
    statusBar()->showMessage(tr("Ready"));
    resize(1280, 800);
    updateTitle();
}

void MainWindow::setPolicy(const Policy &policy, const QString &filePath)
{
    m_policy = policy;
    m_filePath = filePath;
    updateTitle();
}

void MainWindow::updateTitle()
{
    QString title = m_policy.name.isEmpty() ? tr("Untitled policy") : m_policy.name;
    if (!m_filePath.isEmpty())
        title += QStringLiteral(" (%1)").arg(QFileInfo(m_filePath).fileName());
    setWindowTitle(title + QStringLiteral(" — Quota Studio"));
}

} // namespace qs
