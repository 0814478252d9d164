#include "qbox/client_registry.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace erails::qbox {
namespace {

struct Weight {
  double value = 1;
};
using Registry = ClientRegistry<std::string, Weight, int>;

TEST(ClientRegistry, ReusesARemovedClientsSlotWithTheNewClientsState) {
  Registry registry;
  ASSERT_TRUE(registry.add("a", Weight{2}, "use set_weight to change it"));
  ASSERT_TRUE(registry.add("b", Weight{3}, "use set_weight to change it"));
  const std::uint32_t a = registry.slot_of("a");
  EXPECT_NE(a, registry.slot_of("b"));
  ASSERT_TRUE(registry.remove("a"));
  EXPECT_EQ(registry.slot_of("a"), Registry::kNoSlot);
  ASSERT_TRUE(registry.add("c", Weight{5}, "use set_weight to change it"));
  const auto c = registry.find("c");
  ASSERT_TRUE(c);
  EXPECT_EQ(c.value(), a);
  EXPECT_EQ(registry[c.value()].id, "c");
  EXPECT_EQ(registry[c.value()].value, 5);
  EXPECT_EQ(registry.size(), 2u);
}

TEST(ClientRegistry, ErrorsNameTheClientAndWhatToDo) {
  Registry registry;
  ASSERT_TRUE(registry.add("a", Weight{}, "use set_weight to change it"));
  const auto duplicate = registry.add("a", Weight{}, "use set_weight to change it");
  ASSERT_FALSE(duplicate);
  EXPECT_EQ(duplicate.error().key, "client");
  EXPECT_EQ(duplicate.error().message,
            "client 'a' is already registered; use set_weight to change it");
  EXPECT_EQ(registry.remove("ghost").error().message,
            "unknown client 'ghost'; register it with add_client first");
  EXPECT_EQ(registry.find("ghost").error().message, registry.remove("ghost").error().message);
  registry[registry.slot_of("a")].fifo.push(7);
  registry[registry.slot_of("a")].fifo.push(8);
  EXPECT_EQ(registry.remove("a").error().message,
            "client 'a' still has 2 queued requests; dequeue them before removing it");
  EXPECT_EQ(registry.size(), 1u);
}

TEST(ClientRegistry, VisitsOnlyRegisteredClientsInSlotOrder) {
  Registry registry;
  for (const char* id : {"a", "b", "c"}) ASSERT_TRUE(registry.add(id, Weight{}, ""));
  ASSERT_TRUE(registry.remove("b"));
  std::vector<std::string> seen;
  registry.for_each([&](const Registry::Client& client) { seen.push_back(client.id); });
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "c"}));
}

}  // namespace
}  // namespace erails::qbox
