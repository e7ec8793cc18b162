#include "limiter/redismodule/redismoduleapi.h"

namespace qs::redismodule {

Api rm{};

namespace {

using GetApiFunction = int (*)(const char *name, void *slot);

// Redis fills each slot through a void *: the slot is the address of a function pointer.
template <class F>
bool fetch(GetApiFunction getApi, const char *name, F &slot, const char *&missing)
{
    if (getApi(name, static_cast<void *>(&slot)) == kOk && slot)
        return true;
    missing = name;
    return false;
}

} // namespace

bool loadApi(RedisModuleCtx *ctx, const char *&missing)
{
    // The context's first word is GetApi (the documented handshake of RedisModule_Init).
    const auto getApi = reinterpret_cast<GetApiFunction>(reinterpret_cast<void **>(ctx)[0]);
#define QS_FETCH(name) fetch(getApi, "RedisModule_" #name, rm.name, missing)
    return QS_FETCH(Log) && QS_FETCH(SetModuleAttribs) && QS_FETCH(IsModuleNameBusy)
        && QS_FETCH(CreateCommand) && QS_FETCH(StringPtrLen) && QS_FETCH(StringToLongLong)
        && QS_FETCH(CreateString) && QS_FETCH(FreeString) && QS_FETCH(ReplyWithError)
        && QS_FETCH(ReplyWithStringBuffer) && QS_FETCH(ReplyWithArray)
        && QS_FETCH(ReplyWithLongLong) && QS_FETCH(OpenKey) && QS_FETCH(CloseKey)
        && QS_FETCH(KeyType) && QS_FETCH(StringDMA) && QS_FETCH(Call) && QS_FETCH(CallReplyType)
        && QS_FETCH(CallReplyLength) && QS_FETCH(CallReplyArrayElement)
        && QS_FETCH(CallReplyStringPtr) && QS_FETCH(FreeCallReply)
        && QS_FETCH(IsKeysPositionRequest) && QS_FETCH(KeyAtPos) && QS_FETCH(StringSet)
        && QS_FETCH(SetExpire) && QS_FETCH(Milliseconds) && QS_FETCH(Replicate);
#undef QS_FETCH
}

} // namespace qs::redismodule
