#pragma once
// One reply from a Redis server, as hiredis' reader parsed it, in Qt types.
#include <QByteArray>
#include <QList>

namespace qs {

struct RespValue {
    enum class Type { Status, Error, Integer, String, Nil, Array };
    Type type = Type::Nil;
    QByteArray text; // status, error or bulk string
    qint64 integer = 0;
    QList<RespValue> elements;

    bool isError() const { return type == Type::Error; }
    static RespValue error(QByteArray message)
    {
        RespValue v;
        v.type = Type::Error;
        v.text = std::move(message);
        return v;
    }
};

} // namespace qs
