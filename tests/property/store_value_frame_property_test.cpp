// Properties of value framing: every record type roundtrips through its
// frame, and unframing arbitrary or mutated bytes never crashes and fails
// only with a typed error.

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <memory>

#include "store/error.h"
#include "store/record_types.h"
#include "store/value_frame.h"

namespace moraine::store {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// Fills `message` with arbitrary values through reflection, so every field of
// every record type (present and future) is exercised without a hand-written
// generator per message. Optional fields are left unset at random, so NULLs
// are covered too.
void FillArbitrary(Message* message, int depth) {
  const auto* descriptor = message->GetDescriptor();
  const auto* reflection = message->GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    const int count = field->is_repeated() ? *rc::gen::inRange(0, depth > 0 ? 3 : 1)
                                           : (*rc::gen::arbitrary<bool>() ? 1 : 0);
    for (int n = 0; n < count; ++n) {
      const bool repeated = field->is_repeated();
      switch (field->cpp_type()) {
        case FieldDescriptor::CPPTYPE_INT64: {
          const auto v = *rc::gen::arbitrary<int64_t>();
          repeated ? reflection->AddInt64(message, field, v)
                   : reflection->SetInt64(message, field, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_UINT64: {
          const auto v = *rc::gen::arbitrary<uint64_t>();
          repeated ? reflection->AddUInt64(message, field, v)
                   : reflection->SetUInt64(message, field, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_BOOL: {
          const auto v = *rc::gen::arbitrary<bool>();
          repeated ? reflection->AddBool(message, field, v)
                   : reflection->SetBool(message, field, v);
          break;
        }
        case FieldDescriptor::CPPTYPE_STRING: {
          // proto3 `string` must be UTF-8; `bytes` may be anything.
          std::string v = field->type() == FieldDescriptor::TYPE_STRING
                              ? *rc::gen::container<std::string>(rc::gen::inRange<char>(32, 127))
                              : *rc::gen::arbitrary<std::string>();
          repeated ? reflection->AddString(message, field, std::move(v))
                   : reflection->SetString(message, field, std::move(v));
          break;
        }
        case FieldDescriptor::CPPTYPE_MESSAGE: {
          Message* child = repeated ? reflection->AddMessage(message, field)
                                    : reflection->MutableMessage(message, field);
          FillArbitrary(child, depth - 1);
          break;
        }
        default:
          RC_FAIL("records.proto uses a field type the generator does not know: " +
                  field->full_name());
      }
    }
  }
}

RC_GTEST_PROP(StoreValueFrameProperty, RapidcheckRunsAtLeast1000Cases, ()) {
  RC_ASSERT(rc::detail::configuration().testParams.maxSuccess >= 1000);
}

RC_GTEST_PROP(StoreValueFrameProperty, UnframeInvertsFrame, ()) {
  const KindInfo& info = *rc::gen::elementOf(kKindTable);
  std::unique_ptr<Message> record = NewRecord(info.kind);
  FillArbitrary(record.get(), 2);
  const std::string framed = FrameValue(info.kind, *record);
  std::unique_ptr<Message> decoded = NewRecord(info.kind);
  UnframeValue(info.kind, framed, decoded.get());
  RC_ASSERT(google::protobuf::util::MessageDifferencer::Equals(*record, *decoded));
}

RC_GTEST_PROP(StoreValueFrameProperty, UnframingArbitraryBytesIsTotal, (const std::string& bytes)) {
  const KindInfo& info = *rc::gen::elementOf(kKindTable);
  std::unique_ptr<Message> out = NewRecord(info.kind);
  try {
    UnframeValue(info.kind, bytes, out.get());
    // Random bytes essentially never carry the magic and a matching CRC.
    RC_ASSERT(bytes.substr(0, 4) == "MRNE");
  } catch (const CorruptionError&) {
  } catch (const UnsupportedVersionError&) {
  }
}

RC_GTEST_PROP(StoreValueFrameProperty, MutatedFramesFailTyped, ()) {
  const KindInfo& info = *rc::gen::elementOf(kKindTable);
  std::unique_ptr<Message> record = NewRecord(info.kind);
  FillArbitrary(record.get(), 2);
  std::string framed = FrameValue(info.kind, *record);
  const auto position = *rc::gen::inRange<size_t>(0, framed.size());
  const auto mask = *rc::gen::inRange<int>(1, 256);
  framed[position] = static_cast<char>(framed[position] ^ mask);
  const Kind expected = *rc::gen::elementOf(std::vector<Kind>{info.kind, Kind::kHead});
  std::unique_ptr<Message> out = NewRecord(expected);
  try {
    UnframeValue(expected, framed, out.get());
    RC_FAIL("a mutated frame was accepted");
  } catch (const CorruptionError&) {
  } catch (const UnsupportedVersionError&) {
    RC_ASSERT(position == 4);  // only the version byte may say "newer version"
  }
}

}  // namespace
}  // namespace moraine::store
