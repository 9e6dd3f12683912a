#include "sample_records.h"

#include <string>

#include "store/record_types.h"

namespace moraine::fuzz {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

void Fill(Message* message, uint64_t n, int depth) {
  const auto* descriptor = message->GetDescriptor();
  const auto* reflection = message->GetReflection();
  const auto signed_n = static_cast<int64_t>(n);
  const std::string text = "v" + std::to_string(n);
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const FieldDescriptor* field = descriptor->field(i);
    if (field->is_repeated()) {
      switch (field->cpp_type()) {
        case FieldDescriptor::CPPTYPE_INT64:
          reflection->AddInt64(message, field, signed_n);
          break;
        case FieldDescriptor::CPPTYPE_STRING:
          reflection->AddString(message, field, text);
          break;
        case FieldDescriptor::CPPTYPE_MESSAGE:
          if (depth < 2) Fill(reflection->AddMessage(message, field), n, depth + 1);
          break;
        default:
          break;
      }
      continue;
    }
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT64:
        reflection->SetInt64(message, field, signed_n);
        break;
      case FieldDescriptor::CPPTYPE_UINT64:
        reflection->SetUInt64(message, field, n);
        break;
      case FieldDescriptor::CPPTYPE_INT32:
        reflection->SetInt32(message, field, static_cast<int32_t>(n));
        break;
      case FieldDescriptor::CPPTYPE_UINT32:
        reflection->SetUInt32(message, field, static_cast<uint32_t>(n));
        break;
      case FieldDescriptor::CPPTYPE_BOOL:
        reflection->SetBool(message, field, true);
        break;
      case FieldDescriptor::CPPTYPE_STRING:
        reflection->SetString(message, field, text);
        break;
      case FieldDescriptor::CPPTYPE_MESSAGE:
        if (depth < 2) Fill(reflection->MutableMessage(message, field), n, depth + 1);
        break;
      default:
        break;
    }
  }
}

}  // namespace

std::unique_ptr<Message> SampleRecord(store::Kind kind, uint64_t n) {
  auto record = store::NewRecord(kind);
  Fill(record.get(), n, 0);
  return record;
}

std::vector<store::Key> SampleKeys(store::Kind kind, uint64_t n) {
  const store::KindInfo& info = store::GetKindInfo(kind);
  std::vector<uint64_t> components(info.arity, n);
  std::vector<store::Key> keys{store::Key(info.home, kind, components)};
  if (info.versioned) keys.push_back(keys.front().ToHistory(n + 1));
  return keys;
}

}  // namespace moraine::fuzz
