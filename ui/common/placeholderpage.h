#pragma once
#include <QWidget>

namespace qs {

// A tab whose feature has not landed yet: says what it will do, so an empty tab never looks
// like a broken one.
class PlaceholderPage : public QWidget {
    Q_OBJECT
public:
    PlaceholderPage(const QString &title, const QString &explanation, QWidget *parent = nullptr);
};

} // namespace qs
